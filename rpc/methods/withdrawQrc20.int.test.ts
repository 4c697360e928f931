/**
 * QRC20 withdrawals through the RPC (issue 25, docs/compatibility.md §23): a token enabled with
 * legacy `enable` on the Qtum daemon double; `withdraw` builds the `OP_CALL` transfer and pays gas
 * and fee from the key's QTUM outputs; `send_raw_transaction` hands it to the double, which checks
 * inputs and signatures and runs the call on the EVM devnet: the recipient holds the tokens.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Interface } from 'ethers';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { startQtumd, type Qtumd } from '../../devnet/qtumd/qtumd.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { encodeBase58Check } from '../../infra/keys/base58check.ts';
import { startStack, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';

const SWAP = '0x2f754733acd6d753731c00fee32cb484551cc15d';
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);
const address = (hash: Uint8Array, version = 120) => encodeBase58Check(Uint8Array.from([version, ...hash]));

let evm: EvmDevnet;
let qtumd: Qtumd;
let s: Stack;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'QTOK-QRC20' });
  const hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed)));
  evm = await startEvmDevnet({ tokens: [{ symbol: 'QTOK', decimals: 6, mint: [{ address: `0x${hash160.toString('hex')}`, amount: 9_000_000n }] }] });
  qtumd = await startQtumd({ evm });
  qtumd.wallet.fund(hash160, 50_000_000n);
  s = await startStack({
    devnet: evm,
    extraCoins: [
      { coin: 'QTUMN', name: 'qtum', mm2: 1, pubtype: 120, p2shtype: 110, decimals: 8, confpath: qtumd.confPath, protocol: { type: 'QTUM' } },
      { coin: 'QTOK-QRC20', mm2: 1, pubtype: 120, p2shtype: 110, txfee: 400_000, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUMN', contract_address: evm.tokens[0]!.address } } },
    ],
  });
  const enabled = await s.legacy('enable', { coin: 'QTOK-QRC20', swap_contract_address: SWAP });
  assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
});
after(async () => {
  await s?.stop();
  await qtumd?.stop();
  await evm?.stop();
});

async function tokenBalance(hash: Uint8Array): Promise<bigint> {
  return BigInt((await evm.request('eth_call', [{ to: evm.tokens[0]!.address, data: ERC20.encodeFunctionData('balanceOf', [`0x${Buffer.from(hash).toString('hex')}`]) }, 'latest'])) as string);
}

describe('QRC20 withdrawals through the RPC (Qtum daemon double)', () => {
  test('withdraw with Qrc20Gas: Qrc20 fee details; send_raw_transaction; the call ran and the recipient holds 2.5 tokens', async () => {
    const hash = randomBytes(20);
    const w = await s.v2('withdraw', { coin: 'QTOK-QRC20', to: address(hash), amount: '2.5', fee: { type: 'Qrc20Gas', gas_limit: 150000, gas_price: 40 } });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const r = w.body.result;
    assert.deepEqual([r.total_amount, r.spent_by_me, r.received_by_me, r.my_balance_change], ['2.5', '2.5', '0', '-2.5']);
    assert.deepEqual(r.fee_details, { type: 'Qrc20', coin: 'QTUMN', miner_fee: '0.001196', gas_limit: 150000, gas_price: 40, total_gas_fee: '0.06' });
    const sent = await s.legacy('send_raw_transaction', { coin: 'QTOK-QRC20', tx_hex: r.tx_hex });
    assert.deepEqual(sent.body, { tx_hash: r.tx_hash });
    assert.equal(qtumd.wallet.calls.find((c) => c.txid === r.tx_hash)?.status, 'success');
    assert.equal(await tokenBalance(hash), 2_500_000n);
  });

  test('task::withdraw of a QRC20 ends with CoinDoesntSupportInitWithdraw, as the reference', async () => {
    const init = await s.v2('task::withdraw::init', { coin: 'QTOK-QRC20', to: address(randomBytes(20)), amount: '1' });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    let status: any;
    for (let i = 0; i < 400; i++) {
      status = (await s.v2('task::withdraw::status', { task_id: init.body.result.task_id, forget_if_finished: false })).body.result;
      if (status.status === 'Ok' || status.status === 'Error') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(status.status, 'Error', JSON.stringify(status));
    assert.equal(status.details.error_type, 'CoinDoesntSupportInitWithdraw');
    assert.deepEqual(status.details.error_data, { coin: 'QTOK-QRC20' });
  });

  test('errors: a P2SH destination, more tokens than held, an UTXO fee type', async () => {
    const p2sh = await s.v2('withdraw', { coin: 'QTOK-QRC20', to: address(randomBytes(20), 110), amount: '1' });
    assert.deepEqual([p2sh.status, p2sh.body.error_type, p2sh.body.error_data], [400, 'InvalidAddress', 'QRC20 can be sent to P2PKH addresses only']);
    const tooMuch = await s.v2('withdraw', { coin: 'QTOK-QRC20', to: address(randomBytes(20)), amount: '100' });
    assert.deepEqual([tooMuch.status, tooMuch.body.error_type, tooMuch.body.error_data], [400, 'NotSufficientBalance', { coin: 'QTOK-QRC20', available: '6.5', required: '100' }]);
    const utxoFee = await s.v2('withdraw', { coin: 'QTOK-QRC20', to: address(randomBytes(20)), amount: '1', fee: { type: 'UtxoPerKbyte', amount: '0.001' } });
    assert.deepEqual([utxoFee.status, utxoFee.body.error_type, utxoFee.body.error_data], [400, 'InvalidFeePolicy', "Expected 'Qrc20Gas' fee type, found UtxoPerKbyte"]);
  });
});
