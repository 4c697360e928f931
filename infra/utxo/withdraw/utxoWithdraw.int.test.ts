/**
 * Proof by a validator we did not write: withdrawals signed here pass litecoind's
 * `testmempoolaccept`, are broadcast over Electrum (or the native daemon) and mined, and the
 * recipient holds exactly the amount; inputs, change and fee are as planned.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { payments, Transaction } from 'bitcoinjs-lib';
import { countingSigner } from '../../../devnet/testkits/digestSigner.ts';
import { startLitecoind, type Litecoind } from '../../../devnet/litecoind/litecoind.ts';
import { LITECOIN_REGTEST, p2pkhAddress } from '../../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../../devnet/electrum/electrumServer.ts';
import { systemClock } from '../../../kernel/clock.ts';
import { ElectrumPool } from '../../electrum/electrumPool.ts';
import { amountField } from '../daemonAmounts.ts';
import { nodeRpc } from '../daemonRpc.ts';
import { usePool } from '../electrumBackend.ts';
import { cashAddressP2pkh } from '../cashAddress.ts';
import type { UtxoAddressRule } from '../utxoAddress.ts';
import { electrumWithdrawChain } from './electrumWithdrawChain.ts';
import { nativeWithdrawChain } from './nativeWithdrawChain.ts';
import type { DigestSigner } from './signTx.ts';
import { planWithdrawal, prepareUtxoWithdrawal, UtxoWithdrawRefused, type UtxoWithdrawCoin, type UtxoWithdrawOrder } from './utxoWithdraw.ts';
import type { WithdrawChain } from './withdrawChain.ts';

let node: Litecoind;
let server: ElectrumServer;
let pool: ElectrumPool;

const ENTRY = { coin: 'LTCR', pubtype: 111, p2shtype: 58, segwit: true, bech32_hrp: 'rltc', decimals: 8, txfee: 2000, dust: 5460, protocol: { type: 'UTXO' } };
const STANDARD: UtxoAddressRule = { format: 'standard', pubtype: 111, taddr: 0, checksum: 'DoubleSha256' } as UtxoAddressRule;
const SEGWIT: UtxoAddressRule = { format: 'segwit', hrp: 'rltc' };

const testSigner = countingSigner;

const hashOf = (signer: DigestSigner) => payments.p2pkh({ pubkey: Buffer.from(signer.publicKey) }).hash!;
const legacyAddress = (signer: DigestSigner) => p2pkhAddress(hashOf(signer));
const segwitAddress = (signer: DigestSigner) => payments.p2wpkh({ hash: hashOf(signer), network: LITECOIN_REGTEST }).address!;
const electrumChain = (): WithdrawChain => electrumWithdrawChain((signal, work, onServer) => usePool(pool, 'LTCR', signal, work, onServer));
const coin = (rule: UtxoAddressRule, chain: WithdrawChain = electrumChain(), entry: object = ENTRY): UtxoWithdrawCoin => ({ entry: entry as never, addressRule: rule, decimals: 8, matureConfirmations: 100, chain });
const signal = () => new AbortController().signal;

/** A fresh recipient the node watches, and its balance per litecoind. */
async function recipient(): Promise<{ address: string; balance: () => Promise<bigint> }> {
  const address = p2pkhAddress(randomBytes(20));
  await node.rpc('importaddress', [address, '', false]);
  const exact = nodeRpc(node, { exactAmounts: true });
  return { address, balance: async () => (await exact<{ amount: unknown }[]>('listunspent', [1, 9_999_999, [address], true])).reduce((s, u) => s + amountField(u.amount), 0n) };
}

/** testmempoolaccept, then broadcast through the chain, then one block. */
async function acceptAndMine(chain: WithdrawChain, txHex: string, txHash: string): Promise<void> {
  const [verdict] = await node.rpc<{ allowed: boolean; txid: string; 'reject-reason'?: string }[]>('testmempoolaccept', [[txHex]]);
  assert.equal(verdict!.allowed, true, verdict!['reject-reason']);
  assert.equal(verdict!.txid, txHash);
  const sent = await chain.broadcast(txHex, signal());
  assert.equal(sent.txHash, txHash);
  await node.mine(1);
}

/** Sum of the prevouts of `txHex`'s inputs per litecoind: what the fee is computed from. */
async function inputsOf(txHex: string): Promise<bigint> {
  const tx = Transaction.fromHex(txHex);
  const exact = nodeRpc(node, { exactAmounts: true });
  let sum = 0n;
  for (const input of tx.ins) {
    const prev = await exact<{ vout: { value: unknown }[] }>('getrawtransaction', [Buffer.from(input.hash).reverse().toString('hex'), true]);
    sum += amountField(prev.vout[input.index]!.value);
  }
  return sum;
}

before(async () => {
  node = await startLitecoind();
  server = await startElectrumServer({ litecoind: node });
  pool = new ElectrumPool({ servers: [{ url: server.tcp!, protocol: 'TCP' }], minConnected: 1, maxConnected: 1, clock: systemClock, pingIntervalMs: 0 });
});
after(async () => {
  pool?.close();
  await server?.stop();
  await node?.stop();
});

describe('UTXO withdrawals accepted by litecoind regtest', () => {
  test('Given a P2PKH sender with three outputs, When 0.7 LTC is sent at the coin txfee, Then the two smallest fund it, litecoind accepts it, the recipient holds 0.7 and change and fee are as planned', async () => {
    const signer = testSigner();
    for (const amount of [40_000_000n, 50_000_000n, 300_000_000n]) await node.fund(legacyAddress(signer), amount, 0);
    await node.mine(1);
    const to = await recipient();
    const done = await prepareUtxoWithdrawal(coin(STANDARD), { to: to.address, amount: 70_000_000n }, signer, Math.floor(Date.now() / 1000), signal());
    assert.deepEqual(done.plan.inputs.map((i) => i.value), [40_000_000n, 50_000_000n]);
    assert.equal(done.spent, 90_000_000n);
    assert.equal(done.fee, (2000n * BigInt(148 * 2 + 34 * 2 + 10)) / 1000n);
    assert.equal(done.received, 90_000_000n - 70_000_000n - done.fee);
    assert.equal(await inputsOf(done.txHex), done.spent);
    await acceptAndMine(electrumChain(), done.txHex, done.txHash);
    assert.equal(await to.balance(), 70_000_000n);
    const tx = Transaction.fromHex(done.txHex);
    assert.equal(tx.outs[1]!.value, done.received);
    assert.equal(Buffer.from(tx.outs[1]!.script).toString('hex'), Buffer.from(payments.p2pkh({ hash: hashOf(signer) }).output!).toString('hex'));
  });

  test('Given a segwit (P2WPKH) sender, When it withdraws with UtxoPerKbyte, Then the witness transaction is accepted and the fee is the segwit size at that rate', async () => {
    const signer = testSigner();
    await node.fund(segwitAddress(signer), 100_000_000n, 1);
    const to = await recipient();
    const done = await prepareUtxoWithdrawal(coin(SEGWIT), { to: to.address, amount: 25_000_000n, fee: { type: 'UtxoPerKbyte', perKb: 5000n } }, signer, Math.floor(Date.now() / 1000), signal());
    // base 4+1+41+1+34+31+4 = 116, total 116+4+108 = 228, vsize floor((3×116+228)/4) = 144
    assert.equal(done.fee, (5000n * 144n) / 1000n);
    assert.ok(Transaction.fromHex(done.txHex).hasWitnesses());
    await acceptAndMine(electrumChain(), done.txHex, done.txHash);
    assert.equal(await to.balance(), 25_000_000n);
  });

  test('Given max with UtxoFixed, When it withdraws everything, Then one output of balance minus fee is mined and the sender is empty', async () => {
    const signer = testSigner();
    await node.fund(legacyAddress(signer), 30_000_000n, 0);
    await node.fund(legacyAddress(signer), 12_345_678n, 1);
    const to = await recipient();
    const done = await prepareUtxoWithdrawal(coin(STANDARD), { to: to.address, amount: 'max', fee: { type: 'UtxoFixed', perKb: 3000n } }, signer, Math.floor(Date.now() / 1000), signal());
    const fee = (3000n * BigInt(148 * 2 + 34 + 10)) / 1000n;
    assert.equal(done.fee, fee);
    assert.equal(done.received, 0n);
    await acceptAndMine(electrumChain(), done.txHex, done.txHash);
    assert.equal(await to.balance(), 42_345_678n - fee);
    const left = await electrumChain().read({ address: legacyAddress(signer), scripts: [payments.p2pkh({ hash: hashOf(signer) }).output!], relayFee: false, matureConfirmations: 100, decimals: 8 }, signal());
    assert.deepEqual(left.unspents, []);
  });

  test('Given a native daemon that watches the sender, When it withdraws, Then listunspent funds it and sendrawtransaction takes it', async () => {
    const signer = testSigner();
    const address = legacyAddress(signer);
    await node.rpc('importaddress', [address, '', false]);
    await node.fund(address, 80_000_000n, 1);
    const rpc = nodeRpc(node, { exactAmounts: true });
    const chain = nativeWithdrawChain((method, params, s) => rpc(method, params, s), '127.0.0.1');
    const to = await recipient();
    const done = await prepareUtxoWithdrawal(coin(STANDARD, chain), { to: to.address, amount: 10_000_000n }, signer, Math.floor(Date.now() / 1000), signal());
    await acceptAndMine(chain, done.txHex, done.txHash);
    assert.equal(await to.balance(), 10_000_000n);
  });

  test('Given txfee 0 and force_min_relay_fee, When the node cannot estimate, Then the reference fallback 1000/kB is used, floored at the relay fee', async () => {
    const signer = testSigner();
    await node.fund(legacyAddress(signer), 20_000_000n, 1);
    const to = await recipient();
    const entry = { ...ENTRY, txfee: 0, force_min_relay_fee: true };
    // Count what reaches the server: batches (round trips) and the calls in them.
    const batches: string[][] = [];
    const counting: WithdrawChain = electrumWithdrawChain((s, work, onServer) =>
      usePool(pool, 'LTCR', s, (batch) => work((calls) => (batches.push(calls.map((c) => c.method)), batch(calls))), onServer),
    );
    const planned = await planWithdrawal(coin(STANDARD, counting, entry), { to: to.address, amount: 1_000_000n }, signer.publicKey, signal());
    assert.equal(planned.plan.fee, (1000n * 226n) / 1000n); // relay fee is 0.00001 LTC/kB = 1000 per kB too
    // One batch of everything; the output is younger than maturity, so one more tells it is no coinbase.
    assert.equal(planned.roundTrips, 2);
    assert.deepEqual(batches, [
      ['blockchain.headers.subscribe', 'blockchain.scripthash.listunspent', 'blockchain.scripthash.listunspent', 'blockchain.estimatefee', 'blockchain.relayfee'],
      ['blockchain.transaction.get'],
    ]);
  });
});

describe('UTXO withdrawals refused before signing', () => {
  const refusal = async (order: UtxoWithdrawOrder, signer = testSigner(), c = coin(STANDARD)) => {
    const error = await prepareUtxoWithdrawal(c, order, signer, 0, signal()).then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof UtxoWithdrawRefused, String(error));
    assert.equal(signer.signed, 0);
    return error.refusal;
  };

  test('an address of another network (mainnet LTC, a bech32 of another hrp, a CashAddr) is InvalidAddress', async () => {
    const hash = randomBytes(20);
    const mainnet = payments.p2pkh({ hash, network: { ...LITECOIN_REGTEST, pubKeyHash: 48 } }).address!;
    for (const to of [mainnet, payments.p2wpkh({ hash, network: { ...LITECOIN_REGTEST, bech32: 'ltc' } }).address!, cashAddressP2pkh('bitcoincash', hash), 'nonsense']) {
      assert.equal((await refusal({ to, amount: 1_000_000n })).failure, 'InvalidAddress', to);
    }
  });

  test('more than the balance is NotSufficientBalance with the sum and the amount plus fee', async () => {
    const signer = testSigner();
    await node.fund(legacyAddress(signer), 10_000_000n, 1);
    assert.deepEqual(await refusal({ to: p2pkhAddress(randomBytes(20)), amount: 10_000_000n }, signer), { failure: 'NotSufficientBalance', available: 10_000_000n, required: 10_000_000n + (2000n * 192n) / 1000n });
  });

  test('an empty wallet is NotSufficientBalance with available 0', async () => {
    assert.deepEqual(await refusal({ to: p2pkhAddress(randomBytes(20)), amount: 10_000n }), { failure: 'NotSufficientBalance', available: 0n, required: 10_000n });
  });

  test('an amount below dust is AmountTooLow with the dust threshold', async () => {
    assert.deepEqual(await refusal({ to: p2pkhAddress(randomBytes(20)), amount: 5459n }), { failure: 'AmountTooLow', amount: 5459n, threshold: 5460n });
  });

  test('a Zcash-style coin is refused as unsupported', async () => {
    const c = coin(STANDARD, electrumChain(), { ...ENTRY, overwintered: 1 });
    assert.equal((await refusal({ to: p2pkhAddress(randomBytes(20)), amount: 10_000n }, testSigner(), c)).failure, 'Unsupported');
  });
});
