/**
 * Proof for QRC20: a token transfer signed here is taken by the Qtum daemon double's
 * `sendrawtransaction` (inputs and signatures verified, inputs cover outputs and gas), whose
 * `OP_CALL` runs `transfer` on the EVM devnet: the recipient holds the amount afterwards.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Interface } from 'ethers';
import { crypto as btcCrypto, Transaction } from 'bitcoinjs-lib';
import { startEvmDevnet, type EvmDevnet } from '../../../devnet/evm/evmDevnet.ts';
import { startQtumd, type Qtumd } from '../../../devnet/qtumd/qtumd.ts';
import { countingSigner, type CountingSigner } from '../../../devnet/testkits/digestSigner.ts';
import { encodeBase58Check } from '../../keys/base58check.ts';
import { nodeRpc } from '../daemonRpc.ts';
import { daemonContractCalls, readQrc20Balance } from '../qrc20Reader.ts';
import type { UtxoAddressRule } from '../utxoAddress.ts';
import { nativeWithdrawChain } from './nativeWithdrawChain.ts';
import { contractCallScript, prepareQrc20Withdrawal, type Qrc20WithdrawCoin, type Qrc20WithdrawOrder } from './qrc20Withdraw.ts';
import { UtxoWithdrawRefused } from './utxoWithdraw.ts';

const PUBTYPE = 120;
const ENTRY = { coin: 'QTOK-QRC20', pubtype: PUBTYPE, p2shtype: 110, txfee: 400_000, decimals: 6, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUMR', contract_address: '' } } };
const RULE = { format: 'standard', pubtype: PUBTYPE, taddr: 0, checksum: 'DoubleSha256' } as UtxoAddressRule;
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);

let evm: EvmDevnet;
let qtumd: Qtumd;
let sender: CountingSigner;
const senderHash = () => Buffer.from(btcCrypto.hash160(Buffer.from(sender.publicKey)));
const address = (hash: Uint8Array, version = PUBTYPE) => encodeBase58Check(Uint8Array.from([version, ...hash]));
const signal = () => new AbortController().signal;

before(async () => {
  sender = countingSigner();
  evm = await startEvmDevnet({ tokens: [{ symbol: 'QTOK', decimals: 6, mint: [{ address: `0x${senderHash().toString('hex')}`, amount: 5_000_000n }] }] });
  qtumd = await startQtumd({ evm });
  qtumd.wallet.fund(senderHash(), 60_000_000n);
  qtumd.wallet.fund(senderHash(), 40_000_000n);
});
after(async () => {
  await qtumd?.stop();
  await evm?.stop();
});

function coin(signer: CountingSigner = sender): Qrc20WithdrawCoin {
  const rpc = nodeRpc(qtumd, { exactAmounts: true });
  const contract = evm.tokens[0]!.address.slice(2).toLowerCase();
  return {
    entry: ENTRY as never,
    platform: 'QTUMR',
    contract,
    addressRule: RULE,
    decimals: 6,
    matureConfirmations: 500,
    chain: nativeWithdrawChain((method, params, s) => rpc(method, params, s), '127.0.0.1'),
    readTokenBalance: async (s) => (await readQrc20Balance(daemonContractCalls(rpc, s), { ticker: 'QTOK-QRC20', contract, decimals: 6 }, Buffer.from(btcCrypto.hash160(Buffer.from(signer.publicKey))).toString('hex'))).balance,
  };
}

async function tokenBalance(hash: Uint8Array): Promise<bigint> {
  const data = ERC20.encodeFunctionData('balanceOf', [`0x${Buffer.from(hash).toString('hex')}`]);
  return BigInt((await evm.request('eth_call', [{ to: evm.tokens[0]!.address, data }, 'latest'])) as string);
}

describe('QRC20 withdrawals through the Qtum daemon double', () => {
  test('contractCallScript writes OP_4, the gas numbers as minimal script numbers, the call data, the contract and OP_CALL', () => {
    const script = Buffer.from(contractCallScript(Uint8Array.from([0xaa, 0xbb]), 100_000n, 40n, Buffer.alloc(20, 0x11)));
    assert.equal(script.toString('hex'), `54${'03a08601'}${'0128'}${'02aabb'}14${'11'.repeat(20)}c2`);
  });

  test('Given default gas, When 1.5 tokens are sent, Then qtumd takes the transaction, the call runs and the recipient holds 1.5; miner fee and gas are as planned', async () => {
    const recipient = randomBytes(20);
    const done = await prepareQrc20Withdrawal(coin(), { to: address(recipient), amount: 1_500_000n }, sender, Math.floor(Date.now() / 1000), signal());
    assert.equal(done.gasLimit, 100_000n);
    assert.equal(done.gasPrice, 40n);
    assert.equal(done.gasFee, 4_000_000n);
    // the smaller QTUM output (0.4) covers gas and fee; 1 input, the call output (107 bytes) and change (34): 299 bytes at 400000/kB
    assert.deepEqual(done.plan.inputs.map((i) => i.value), [40_000_000n]);
    assert.equal(done.minerFee, (400_000n * 299n) / 1000n);
    const tx = Transaction.fromHex(done.txHex);
    assert.equal(tx.outs[1]!.value, 40_000_000n - 4_000_000n - done.minerFee);
    const sent = await coin().chain.broadcast(done.txHex, signal());
    assert.equal(sent.txHash, done.txHash);
    const call = qtumd.wallet.calls.find((c) => c.txid === done.txHash);
    assert.equal(call?.status, 'success');
    assert.equal(call?.sender, `0x${senderHash().toString('hex')}`);
    assert.equal(await tokenBalance(recipient), 1_500_000n);
    assert.equal(await tokenBalance(senderHash()), 3_500_000n);
  });

  test('the double is a real check: a tampered signature and a spent input are refused with qtumd codes', async () => {
    const done = await prepareQrc20Withdrawal(coin(), { to: address(randomBytes(20)), amount: 1n }, sender, 0, signal());
    const tx = Transaction.fromHex(done.txHex);
    const script = Buffer.from(tx.ins[0]!.script);
    script[10] = script[10]! ^ 0x01; // inside the DER signature's r
    tx.setInputScript(0, script);
    const rpc = nodeRpc(qtumd);
    await assert.rejects(rpc('sendrawtransaction', [tx.toHex()]), (e: Error & { code?: number }) => e.code === -26);
    await rpc('sendrawtransaction', [done.txHex]);
    await assert.rejects(rpc('sendrawtransaction', [done.txHex]), (e: Error & { code?: number }) => e.code === -25 && /missingorspent/.test(e.message));
  });

  test('Given Qrc20Gas and max, When sent, Then the whole token balance moves and the gas is as requested', async () => {
    const recipient = randomBytes(20);
    const done = await prepareQrc20Withdrawal(coin(), { to: address(recipient), amount: 'max', gas: { gasLimit: 250_000n, gasPrice: 41n } }, sender, 0, signal());
    assert.equal(done.amount, 3_499_999n);
    assert.equal(done.gasFee, 250_000n * 41n);
    await coin().chain.broadcast(done.txHex, signal());
    assert.equal(await tokenBalance(recipient), 3_499_999n);
  });

  describe('refusals, before anything is signed', () => {
    const refusal = async (order: Qrc20WithdrawOrder, signer = sender) => {
      const before = signer.signed;
      const error = await prepareQrc20Withdrawal(coin(signer), order, signer, 0, signal()).then(() => assert.fail('expected a refusal'), (e: unknown) => e);
      assert.ok(error instanceof UtxoWithdrawRefused, String(error));
      assert.equal(signer.signed, before);
      return error.refusal;
    };
    test('a P2SH destination: QRC20 goes to P2PKH only', async () => {
      assert.deepEqual(await refusal({ to: address(randomBytes(20), 110), amount: 1n }), { failure: 'InvalidAddress', message: 'QRC20 can be sent to P2PKH addresses only' });
    });
    test('more tokens than held: NotSufficientBalance of the token', async () => {
      const poor = countingSigner();
      assert.deepEqual(await refusal({ to: address(randomBytes(20)), amount: 1n }, poor), { failure: 'NotSufficientBalance', coin: 'QTOK-QRC20', decimals: 6, available: 0n, required: 1n });
    });
    test('max of nothing: ZeroBalanceToWithdrawMax', async () => {
      assert.deepEqual(await refusal({ to: address(randomBytes(20)), amount: 'max' }, countingSigner()), { failure: 'ZeroBalanceToWithdrawMax' });
    });
    test('gas beyond the QTUM held: NotSufficientBalance of the platform', async () => {
      const refused = await refusal({ to: address(randomBytes(20)), amount: 0n, gas: { gasLimit: 10_000_000n, gasPrice: 100n } });
      assert.equal(refused.failure, 'NotSufficientBalance');
      assert.equal((refused as { coin?: string }).coin, 'QTUMR');
    });
  });
});
