/**
 * UTXO withdrawals through the RPC (issue 25, docs/compatibility.md §23) on litecoind regtest:
 * `withdraw` (v2 and legacy) and `task::withdraw` sign, `send_raw_transaction` broadcasts over
 * Electrum or the native daemon, litecoind (which we did not write) accepts and mines, and the
 * recipient holds the amount. Errors with their payloads, `max`, and an HD wallet's `from`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crypto as btcCrypto, payments, Transaction } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { startStack, startTestDevnet, TEST_PASSPHRASE, type Stack } from '../../devnet/testing/stack.ts';
import type { EvmDevnet } from '../../devnet/index.ts';
import { createHdKeyProvider, createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const LTCR = { coin: 'LTCR', name: 'litecoin', mm2: 1, pubtype: 111, p2shtype: 58, segwit: true, bech32_hrp: 'rltc', decimals: 8, txfee: 2000, dust: 5460, derivation_path: "m/44'/2'", protocol: { type: 'UTXO' } };
const LTCN = { ...LTCR, coin: 'LTCN' };

let node: Litecoind;
let electrum: ElectrumServer;
let devnet: EvmDevnet;

before(async () => {
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
});
after(async () => {
  await electrum?.stop();
  await node?.stop();
  await devnet?.stop();
});

const hashOfKey = (compressed: Uint8Array) => Buffer.from(btcCrypto.hash160(Buffer.from(compressed)));

/** A fresh recipient litecoind watches, and its confirmed balance. */
async function recipient(): Promise<{ address: string; balance: () => Promise<bigint> }> {
  const address = p2pkhAddress(randomBytes(20));
  await node.rpc('importaddress', [address, '', false]);
  const exact = nodeRpc(node, { exactAmounts: true });
  return { address, balance: async () => (await exact<{ amount: unknown }[]>('listunspent', [1, 9_999_999, [address], true])).reduce((s, u) => s + amountField(u.amount), 0n) };
}

async function accepted(txHex: string, txHash: string): Promise<void> {
  const [verdict] = await node.rpc<{ allowed: boolean; txid: string; 'reject-reason'?: string }[]>('testmempoolaccept', [[txHex]]);
  assert.equal(verdict!.allowed, true, verdict!['reject-reason']);
  assert.equal(verdict!.txid, txHash);
}

/** `send_raw_transaction`, then one block. */
async function broadcastAndMine(s: Stack, coin: string, txHex: string, txHash: string): Promise<void> {
  const sent = await s.legacy('send_raw_transaction', { coin, tx_hex: txHex });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.deepEqual(sent.body, { tx_hash: txHash });
  await node.mine(1);
}

describe('UTXO withdrawals through the RPC, Iguana key over Electrum', () => {
  let s: Stack;
  let sender: string;
  before(async () => {
    const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTCR' });
    sender = p2pkhAddress(hashOfKey(key.compressed));
    await node.fund(sender, 60_000_000n, 0);
    await node.fund(sender, 40_000_000n, 1);
    s = await startStack({ devnet, extraCoins: [LTCR] });
    const enabled = await s.legacy('electrum', { coin: 'LTCR', servers: [{ url: electrum.tcp!, protocol: 'TCP' }] });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
  });
  after(() => s?.stop());

  test('v2 withdraw signs (not broadcast), the reference TransactionDetails; send_raw_transaction broadcasts; mined; recipient holds the amount', async () => {
    const to = await recipient();
    const w = await s.v2('withdraw', { coin: 'LTCR', to: to.address, amount: '0.5' });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const r = w.body.result;
    const fee = (2000n * 374n) / 1000n; // two inputs (0.4 + 0.6), two outputs
    assert.deepEqual(
      { from: r.from, to: r.to, total_amount: r.total_amount, spent_by_me: r.spent_by_me, received_by_me: r.received_by_me, my_balance_change: r.my_balance_change, fee_details: r.fee_details, coin: r.coin, block_height: r.block_height },
      { from: [sender], to: [to.address], total_amount: '1', spent_by_me: '1', received_by_me: '0.49999252', my_balance_change: '-0.50000748', fee_details: { type: 'Utxo', coin: 'LTCR', amount: `0.00000${fee}` }, coin: 'LTCR', block_height: 0 },
    );
    assert.ok(!(await node.rpc<string[]>('getrawmempool')).includes(r.tx_hash), 'withdraw never broadcasts');
    await accepted(r.tx_hex, r.tx_hash);
    await broadcastAndMine(s, 'LTCR', r.tx_hex, r.tx_hash);
    assert.equal(await to.balance(), 50_000_000n);
  });

  test('task::withdraw: init, status Ok with the same details; then send_raw_transaction', async () => {
    const to = await recipient();
    const init = await s.v2('task::withdraw::init', { coin: 'LTCR', to: to.address, amount: '0.1', fee: { type: 'UtxoPerKbyte', amount: '0.00005' } });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    let status: any;
    for (let i = 0; i < 2000; i++) {
      status = (await s.v2('task::withdraw::status', { task_id: init.body.result.task_id, forget_if_finished: false })).body.result;
      if (status.status === 'Ok' || status.status === 'Error') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(status.status, 'Ok', JSON.stringify(status));
    assert.deepEqual(status.details.fee_details, { type: 'Utxo', coin: 'LTCR', amount: '0.0000113' }); // 5000/kB × 226 bytes
    await accepted(status.details.tx_hex, status.details.tx_hash);
    await broadcastAndMine(s, 'LTCR', status.details.tx_hex, status.details.tx_hash);
    assert.equal(await to.balance(), 10_000_000n);
  });

  test('errors with the spec payloads: NotSufficientBalance, AmountTooLow, InvalidAddress, InvalidFeePolicy; legacy answers 500 with the sentence', async () => {
    const to = p2pkhAddress(randomBytes(20));
    const tooMuch = await s.v2('withdraw', { coin: 'LTCR', to, amount: '1000' });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.error_type, 'NotSufficientBalance');
    assert.equal(tooMuch.body.error_data.coin, 'LTCR');
    assert.match(tooMuch.body.error_data.required, /^1000\.0000\d+$/);
    const dust = await s.v2('withdraw', { coin: 'LTCR', to, amount: '0.00005' });
    assert.deepEqual([dust.status, dust.body.error_type, dust.body.error_data], [400, 'AmountTooLow', { amount: '0.00005', threshold: '0.0000546' }]);
    const mainnet = payments.p2pkh({ hash: randomBytes(20), network: { pubKeyHash: 48 } as never }).address!;
    const other = await s.v2('withdraw', { coin: 'LTCR', to: mainnet, amount: '0.01' });
    assert.deepEqual([other.status, other.body.error_type], [400, 'InvalidAddress']);
    const evmFee = await s.v2('withdraw', { coin: 'LTCR', to, amount: '0.01', fee: { type: 'EthGas', gas_price: '1', gas: 21000 } });
    assert.deepEqual([evmFee.status, evmFee.body.error_type, evmFee.body.error_data], [400, 'InvalidFeePolicy', "Expected 'UtxoFixed' or 'UtxoPerKbyte' fee types, found EthGas"]);
    // Fields a UTXO transaction cannot carry are refused by name, not dropped.
    const memo = await s.v2('withdraw', { coin: 'LTCR', to, amount: '0.01', memo: 'hello' });
    assert.deepEqual([memo.status, memo.body.error_type], [400, 'InvalidMemo']);
    const expiry = await s.v2('withdraw', { coin: 'LTCR', to, amount: '0.01', expiration_seconds: 60 });
    assert.deepEqual([expiry.status, expiry.body.error_type], [400, 'InvalidRequest']);
    assert.match(expiry.body.error, /expiration_seconds/);
    const legacy = await s.legacy('withdraw', { coin: 'LTCR', to: mainnet, amount: '0.01' });
    assert.equal(legacy.status, 500);
    assert.equal(typeof legacy.body.error, 'string');
  });

  test('legacy withdraw with max and UtxoFixed: the flat result; everything less the fee reaches the recipient', async () => {
    const to = await recipient();
    const w = await s.legacy('withdraw', { coin: 'LTCR', to: to.address, max: true, fee: { type: 'UtxoFixed', amount: '0.00003' } });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    assert.equal(w.body.received_by_me, '0');
    const tx = Transaction.fromHex(w.body.tx_hex);
    assert.equal(tx.outs.length, 1);
    const fee = BigInt(Math.round(Number(w.body.fee_details.amount) * 1e8));
    assert.equal(fee, (3000n * BigInt(148 * tx.ins.length + 34 + 10)) / 1000n);
    await accepted(w.body.tx_hex, w.body.tx_hash);
    await broadcastAndMine(s, 'LTCR', w.body.tx_hex, w.body.tx_hash);
    assert.equal(await to.balance(), tx.outs[0]!.value);
    const empty = await s.v2('withdraw', { coin: 'LTCR', to: to.address, max: true });
    assert.equal(empty.body.error_type, 'AmountTooLow'); // max of nothing: an output of 0 is below dust (the reference's answer)
  });
});

describe('UTXO withdrawals through the RPC, native daemon', () => {
  test('legacy enable over litecoind; withdraw; send_raw_transaction through sendrawtransaction; mined', async () => {
    const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTCN' });
    const sender = p2pkhAddress(hashOfKey(key.compressed));
    await node.rpc('importaddress', [sender, '', false]);
    await node.fund(sender, 30_000_000n, 1);
    const s = await startStack({ devnet, extraCoins: [{ ...LTCN, confpath: node.confPath, rpcport: node.rpcPort }] });
    try {
      const enabled = await s.legacy('enable', { coin: 'LTCN' });
      assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
      const to = await recipient();
      const w = await s.v2('withdraw', { coin: 'LTCN', to: to.address, amount: '0.2' });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      await accepted(w.body.result.tx_hex, w.body.result.tx_hash);
      await broadcastAndMine(s, 'LTCN', w.body.result.tx_hex, w.body.result.tx_hash);
      assert.equal(await to.balance(), 20_000_000n);
    } finally {
      await s.stop();
    }
  });
});

describe('UTXO withdrawals through the RPC, HD wallet', () => {
  test('from a listed address (account 0, External, 3): its outputs fund it, change returns to it; an unlisted one is refused', async () => {
    const keys = createHdKeyProvider(MNEMONIC);
    const hashAt = async (addressId: number) => hashOfKey((await keys.publicKey(LTCR as never, { accountId: 0, chain: 'External', addressId })).compressed);
    const third = p2pkhAddress(await hashAt(3));
    await node.fund(p2pkhAddress(await hashAt(0)), 10_000_000n, 0);
    await node.fund(third, 80_000_000n, 1);
    const s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC }, extraCoins: [LTCR] });
    try {
      const init = await s.v2('task::enable_utxo::init', {
        ticker: 'LTCR',
        activation_params: { priv_key_policy: 'ContextPrivKey', min_addresses_number: 1, scan_policy: 'scan_if_new_wallet', gap_limit: 20, mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: electrum.tcp!, protocol: 'TCP' }] } } },
      });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      let status: any;
      for (let i = 0; i < 2000; i++) {
        status = (await s.v2('task::enable_utxo::status', { task_id: init.body.result.task_id, forget_if_finished: false })).body.result;
        if (status.status === 'Ok' || status.status === 'Error') break;
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(status.status, 'Ok', JSON.stringify(status));
      const to = await recipient();
      const w = await s.v2('withdraw', { coin: 'LTCR', to: to.address, amount: '0.3', from: { account_id: 0, chain: 'External', address_id: 3 } });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      assert.deepEqual(w.body.result.from, [third]);
      assert.equal(w.body.result.total_amount, '0.8'); // address 3's output only
      await accepted(w.body.result.tx_hex, w.body.result.tx_hash);
      await broadcastAndMine(s, 'LTCR', w.body.result.tx_hex, w.body.result.tx_hash);
      assert.equal(await to.balance(), 30_000_000n);
      const unlisted = await s.v2('withdraw', { coin: 'LTCR', to: to.address, amount: '0.01', from: { account_id: 0, chain: 'External', address_id: 15 } });
      assert.deepEqual([unlisted.status, unlisted.body.error_type], [400, 'UnexpectedFromAddress']);
    } finally {
      await s.stop();
    }
  });
});
