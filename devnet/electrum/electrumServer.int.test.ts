import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Transaction } from 'bitcoinjs-lib';
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import { fundImmatureCoinbase } from '../litecoind/coinbaseFunding.ts';
import { startLitecoind, type Litecoind } from '../litecoind/litecoind.ts';
import { p2pkhAddress } from '../litecoind/litecoinRegtest.ts';
import { nodeRpc } from '../../infra/utxo/daemonRpc.ts';
import { devnetTls } from './devnetTls.ts';
import { startElectrumServer, type ElectrumServer } from './electrumServer.ts';
import { connectElectrum, ElectrumCallError, type ElectrumTestClient } from './electrumTestClient.ts';
import { addressScriptHash, merkleBranch, sha256Hex } from './hashes.ts';

const sha256d = (data: Buffer) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
/** A fresh P2PKH address the node's wallet does not own (so the wallet never spends from it). */
const freshAddress = () => p2pkhAddress(randomBytes(20));
const rejectsWith = (promise: Promise<unknown>, code: number, message?: RegExp) =>
  assert.rejects(promise, (error: unknown) => error instanceof ElectrumCallError && error.code === code && (!message || message.test(error.message)));

describe('startElectrumServer', () => {
  const { ca } = devnetTls();
  let node: Litecoind;
  let server: ElectrumServer;
  let client: ElectrumTestClient;

  before(async () => {
    node = await startLitecoind();
    server = await startElectrumServer({ litecoind: node, pollMs: 100 });
    client = await connectElectrum('TCP', server.tcp!);
    assert.deepEqual(await client.call('server.version', ['test', ['1.2', '1.4']]), ['devnet-electrum 0.1', '1.4']);
  });
  after(async () => {
    client?.close();
    await server?.stop();
    await node?.stop();
  });

  test('listens on loopback only', () => {
    for (const address of [server.tcp, server.ssl, server.wss]) assert.match(address!, /^127\.0\.0\.1:\d+$/);
  });

  test('server.version negotiates 1.4 once; a range without 1.4 is an error and the connection closes', async () => {
    await rejectsWith(client.call('server.version', ['test', '1.4']), 1, /already sent/);
    const other = await connectElectrum('TCP', server.tcp!);
    await rejectsWith(other.call('server.version', ['test', ['1.0', '1.1']]), 1, /unsupported protocol version/);
    await other.closed;
    const defaults = await connectElectrum('TCP', server.tcp!);
    assert.deepEqual(await defaults.call('server.version'), ['devnet-electrum 0.1', '1.4']);
    defaults.close();
  });

  test('get_balance, listunspent, get_history and get_mempool of a P2PKH address match litecoind', async () => {
    const address = freshAddress();
    const scriptHash = addressScriptHash(address);
    const confirmedTxid = await node.fund(address, 150_000_000n);
    const mempoolTxid = await node.fund(address, 25_000_000n, 0);
    const scan = await nodeRpc(node, { exactAmounts: true })<{ total_amount: unknown }>('scantxoutset', ['start', [`addr(${address})`]]);
    assert.equal(amountField(scan.total_amount), 150_000_000n); // the UTXO set holds confirmed outputs only
    assert.deepEqual(await client.call('blockchain.scripthash.get_balance', [scriptHash]), { confirmed: 150_000_000, unconfirmed: 25_000_000 });

    const height = await node.rpc<number>('getblockcount');
    const vout = (txid: string) => node.rpc<{ vout: { n: number; scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', [txid, true]).then((tx) => tx.vout.find((o) => o.scriptPubKey.addresses?.includes(address))!.n);
    assert.deepEqual(await client.call('blockchain.scripthash.listunspent', [scriptHash]), [
      { tx_hash: confirmedTxid, tx_pos: await vout(confirmedTxid), height, value: 150_000_000 },
      { tx_hash: mempoolTxid, tx_pos: await vout(mempoolTxid), height: 0, value: 25_000_000 },
    ]);
    const entry = await nodeRpc(node, { exactAmounts: true })<{ fees: { base: unknown } }>('getmempoolentry', [mempoolTxid]);
    const mempool = [{ tx_hash: mempoolTxid, height: 0, fee: Number(amountField(entry.fees.base)) }];
    assert.deepEqual(await client.call('blockchain.scripthash.get_mempool', [scriptHash]), mempool);
    assert.deepEqual(await client.call('blockchain.scripthash.get_history', [scriptHash]), [{ tx_hash: confirmedTxid, height }, ...mempool]);
    const status = sha256Hex(`${confirmedTxid}:${height}:${mempoolTxid}:0:`);
    assert.equal(await client.call('blockchain.scripthash.subscribe', [scriptHash]), status);
    assert.equal(await client.call('blockchain.scripthash.subscribe', [addressScriptHash(freshAddress())]), null);
    assert.equal(await client.call('blockchain.scripthash.unsubscribe', [scriptHash]), true);
  });

  test('transaction.get returns the raw transaction; a coinbase is recognisable', async () => {
    const funded = await fundImmatureCoinbase(node, randomBytes(20));
    const coinbase = Transaction.fromHex(await client.call<string>('blockchain.transaction.get', [funded.txid]));
    assert.equal(coinbase.isCoinbase(), true);
    assert.equal(coinbase.getId(), funded.txid);
    const verbose = await client.call<{ vin: { coinbase?: string }[]; confirmations: number }>('blockchain.transaction.get', [funded.txid, true]);
    assert.ok(verbose.vin[0]!.coinbase);
    assert.deepEqual(await client.call('blockchain.scripthash.listunspent', [addressScriptHash(funded.address)]), [
      { tx_hash: funded.txid, tx_pos: 0, height: funded.height, value: Number(funded.litoshis) },
    ]);
    const paid = Transaction.fromHex(await client.call<string>('blockchain.transaction.get', [await node.fund(freshAddress(), 100_000n, 0)]));
    assert.equal(paid.isCoinbase(), false);
    await rejectsWith(client.call('blockchain.transaction.get', ['00'.repeat(32)]), 2, /daemon error: .*'code': -5/);
  });

  test('transaction.get_merkle proves inclusion under the block header merkle root', async () => {
    const txid = await node.fund(freshAddress(), 100_000n);
    const height = await node.rpc<number>('getblockcount');
    const proof = await client.call<{ block_height: number; merkle: string[]; pos: number }>('blockchain.transaction.get_merkle', [txid, height]);
    let hash = Buffer.from(txid, 'hex').reverse();
    proof.merkle.forEach((sibling, level) => {
      const other = Buffer.from(sibling, 'hex').reverse();
      hash = (proof.pos >> level) & 1 ? sha256d(Buffer.concat([other, hash])) : sha256d(Buffer.concat([hash, other]));
    });
    const header = Buffer.from(await client.call<string>('blockchain.block.header', [height]), 'hex');
    assert.deepEqual(hash, header.subarray(36, 68));
    assert.equal(await client.call('blockchain.transaction.id_from_pos', [height, proof.pos]), txid);
  });

  test('headers: 80-byte hex whose double sha256 is the block hash; block.headers concatenates them', async () => {
    const tip = await client.call<{ height: number; hex: string }>('blockchain.headers.subscribe');
    assert.equal(tip.hex.length, 160);
    assert.equal(sha256d(Buffer.from(tip.hex, 'hex')).reverse().toString('hex'), await node.rpc('getblockhash', [tip.height]));
    const chunk = await client.call<{ count: number; hex: string; max: number }>('blockchain.block.headers', [tip.height - 1, 5]);
    assert.deepEqual({ count: chunk.count, max: chunk.max }, { count: 2, max: 2016 });
    assert.equal(chunk.hex.slice(160), tip.hex);
    const proof = await client.call<{ branch: string[]; root: string }>('blockchain.block.header', [1, 3]);
    const hashes = await Promise.all([0, 1, 2, 3].map((h) => node.rpc<string>('getblockhash', [h])));
    assert.deepEqual(proof, { header: await client.call('blockchain.block.header', [1]), ...merkleBranch(hashes, 1) });
    await rejectsWith(client.call('blockchain.block.header', [tip.height + 1]), 1, /out of range/);
  });

  test('a new block is notified to header subscribers, a status change to script-hash subscribers', async () => {
    const tip = await client.call<{ height: number }>('blockchain.headers.subscribe');
    const address = freshAddress();
    const scriptHash = addressScriptHash(address);
    assert.equal(await client.call('blockchain.scripthash.subscribe', [scriptHash]), null);
    const [hash] = await node.mine(1);
    const [header] = (await client.notification('blockchain.headers.subscribe')) as [{ height: number; hex: string }];
    assert.equal(header.height, tip.height + 1);
    assert.equal(sha256d(Buffer.from(header.hex, 'hex')).reverse().toString('hex'), hash);
    const txid = await node.fund(address, 100_000n, 0);
    assert.deepEqual(await client.notification('blockchain.scripthash.subscribe'), [scriptHash, sha256Hex(`${txid}:0:`)]);
    await node.mine(1);
    const height = await node.rpc<number>('getblockcount');
    assert.deepEqual(await client.notification('blockchain.scripthash.subscribe'), [scriptHash, sha256Hex(`${txid}:${height}:`)]);
  });

  test('SSL verifies with the test CA; a verifying client refuses an untrusted or unknown certificate', async () => {
    const ssl = await connectElectrum('SSL', server.ssl!, { ca });
    assert.deepEqual(await ssl.call('server.version', ['test', '1.4']), ['devnet-electrum 0.1', '1.4']);
    ssl.close();
    await assert.rejects(connectElectrum('SSL', server.ssl!), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }); // Node's own CA store
    const untrusted = await startElectrumServer({ litecoind: node, tls: devnetTls().untrusted, transports: ['SSL', 'WSS'] });
    try {
      await assert.rejects(connectElectrum('SSL', untrusted.ssl!, { ca }), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
      await assert.rejects(connectElectrum('WSS', untrusted.wss!, { ca }), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
      assert.equal(untrusted.tcp, undefined);
    } finally {
      await untrusted.stop();
    }
  });

  test('WSS carries one JSON message per text frame', async () => {
    const wss = await connectElectrum('WSS', server.wss!, { ca });
    assert.deepEqual(await wss.call('server.version', ['test', ['1.4', '1.4']]), ['devnet-electrum 0.1', '1.4']);
    const tip = await wss.call<{ height: number }>('blockchain.headers.subscribe');
    assert.equal(tip.height, await node.rpc('getblockcount'));
    assert.equal((await wss.batch([{ method: 'server.ping' }, { method: 'server.ping' }])).length, 2);
    wss.close();
  });

  test('refuse closes new connections at once; silent accepts and never answers', async () => {
    const seen = server.connections();
    try {
      server.setMode('refuse');
      const refused = await connectElectrum('TCP', server.tcp!).then((c) => c.closed);
      assert.equal(refused, undefined);
      await assert.rejects(connectElectrum('SSL', server.ssl!, { ca }));
      await assert.rejects(connectElectrum('WSS', server.wss!, { ca }));
      assert.equal(server.connections(), seen + 3);

      server.setMode('silent');
      const silent = await connectElectrum('TCP', server.tcp!);
      await assert.rejects(silent.call('server.ping', [], 300), /no answer/);
      assert.equal(server.hits.at(-1), 'server.ping');
      server.setMode('normal');
      assert.equal(await silent.call('server.ping'), null);
      silent.close();
    } finally {
      server.setMode('normal');
    }
  });

  test('a reorg (invalidateblock) is followed: the confirmed payment goes back to the mempool', async () => {
    const address = freshAddress();
    const scriptHash = addressScriptHash(address);
    await node.fund(address, 300_000n);
    assert.deepEqual(await client.call('blockchain.scripthash.get_balance', [scriptHash]), { confirmed: 300_000, unconfirmed: 0 });
    const tip = await node.rpc<string>('getbestblockhash');
    await node.rpc('invalidateblock', [tip]);
    try {
      assert.deepEqual(await client.call('blockchain.scripthash.get_balance', [scriptHash]), { confirmed: 0, unconfirmed: 300_000 });
    } finally {
      await node.rpc('reconsiderblock', [tip]);
    }
    assert.deepEqual(await client.call('blockchain.scripthash.get_balance', [scriptHash]), { confirmed: 300_000, unconfirmed: 0 });
  });

  test('fee rates: estimatefee is -1 without data, relayfee is the node minimum', async () => {
    assert.equal(await client.call('blockchain.estimatefee', [2]), -1);
    assert.equal(await client.call('blockchain.relayfee'), (await node.rpc<{ relayfee: number }>('getnetworkinfo')).relayfee);
    const features = await client.call<Record<string, unknown>>('server.features');
    assert.equal(features.genesis_hash, await node.rpc('getblockhash', [0]));
    assert.equal(features.protocol_min, '1.4');
    assert.equal(await client.call('server.ping'), null);
  });

  test('batches answer in order; notifications inside get no answer; errors stay per element', async () => {
    const answers = await client.batch([{ method: 'server.ping' }, { method: 'no.such.method' }, { method: 'server.ping', notification: true }, { method: 'blockchain.scripthash.get_balance', params: ['xyz'] }]);
    assert.equal(answers.length, 3);
    assert.deepEqual(answers[0]!.result, null);
    assert.equal(answers[1]!.error!.code, -32601);
    assert.equal(answers[2]!.error!.code, 1);
  });

  test('unknown method is -32601; bad params are -32602 (arity) or 1 (value)', async () => {
    await rejectsWith(client.call('blockchain.nope'), -32601);
    await rejectsWith(client.call('blockchain.scripthash.get_balance'), -32602);
    await rejectsWith(client.call('blockchain.scripthash.get_balance', ['zz']), 1, /not a valid script hash/);
    await rejectsWith(client.call('blockchain.contract.call', ['00'.repeat(20), '']), -32601); // no EVM configured
  });
});
