import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { walletHistory, walletPair, type WalletPair, type WalletTx } from '../../devnet/litecoind/walletHistory.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { startTcpLatencyRelay } from '../../devnet/proxies/tcpLatencyRelay.ts';
import { startStack, startTestDevnet, TEST_PASSPHRASE, TEST_PASSWORD, type Stack } from '../../devnet/testing/stack.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import type { EvmDevnet } from '../../devnet/index.ts';
import { iguanaPrivateKey } from '../../infra/keys/iguanaSeed.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { formatAmount } from '../../spec/amount.ts';
import type { StoredEvent } from '../../spec/events.ts';

/**
 * `my_tx_history` (issue 26) of an Iguana LTC wallet against regtest litecoind and the devnet
 * Electrum server: litecoind makes transactions to and from the wallet's address (its key imported
 * into a second litecoind wallet), and the history, its order, pages, filters, confirmations and
 * fees are compared with what litecoind says of the same wallet.
 */

const COIN = 'LTCR';
const COINS = [{ coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, p2shtype: 58, decimals: 8, protocol: { type: 'UTXO' } }];
const RECEIVES = [10, 20, 30, 40, 50, 60, 70, 80].map((n) => BigInt(n) * 1_000_000n);
const SENDS = [5, 6, 7].map((n) => BigInt(n) * 1_000_000n);

let node: Litecoind;
let server: ElectrumServer;
let devnet: EvmDevnet;
let wallets: WalletPair;
let address: string;
let elsewhere: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
  address = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  wallets = await walletPair(node, [iguanaPrivateKey(TEST_PASSPHRASE).key]);
  elsewhere = await wallets.node<string>('getnewaddress', ['', 'legacy']);
  for (const [i, value] of RECEIVES.entries()) {
    await wallets.sendMany({ [address]: value });
    if (i % 2 === 1) await node.mine(1); // two transactions per block: ties ordered by hash
  }
  for (const value of SENDS) {
    await wallets.spend({ [elsewhere]: value }, address);
    await node.mine(1);
  }
  await wallets.sendMany({ [address]: 9_000_000n }); // left unconfirmed
  server = await startElectrumServer({ litecoind: node, transports: ['TCP'], pollMs: 50 });
});
after(async () => {
  await server?.stop();
  await node?.stop();
  await devnet?.stop();
});

/** litecoind's view in the reference's order: unconfirmed first, then height descending, then txid. */
async function expected(): Promise<WalletTx[]> {
  const txs = await walletHistory(wallets);
  return txs.sort((a, b) => (a.blockHeight === 0) !== (b.blockHeight === 0) ? (a.blockHeight === 0 ? -1 : 1) : b.blockHeight - a.blockHeight || (a.txid < b.txid ? -1 : 1));
}

async function enable(s: Stack, servers: readonly string[], extra: Record<string, unknown> = {}): Promise<void> {
  const { status, body } = await s.legacy('electrum', { coin: COIN, servers: servers.map((url) => ({ url, protocol: 'TCP' })), tx_history: true, ...extra });
  assert.equal(status, 200, JSON.stringify(body));
}

const history = (s: Stack, params: Record<string, unknown> = {}) => s.v2('my_tx_history', { coin: COIN, limit: 100, ...params });

async function untilFinished(s: Stack, count?: number): Promise<any> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const { body } = await history(s);
    if (body.result?.sync_status.state === 'Finished' && (count === undefined || body.result.total === count)) return body.result;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`history did not finish: ${JSON.stringify((await history(s)).body)}`);
}

async function historyEvents(s: Stack): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) if (e.type.startsWith('HistorySync')) out.push(e);
  return out;
}

describe('my_tx_history of an Iguana LTC wallet over Electrum', () => {
  test('the whole history matches litecoind: order, amounts, fees, confirmations, heights, times; then pages, FromId, filters and errors', async () => {
    const s = await startStack({ devnet, extraCoins: COINS });
    try {
      // before activation: the reference's errors for a coin that is not active
      assert.deepEqual(((r) => [r.status, r.body.error_type])(await history(s)), [404, 'CoinIsNotActive']);
      assert.deepEqual(((r) => [r.status, r.body.error])(await s.legacy('my_tx_history', { coin: COIN })), [500, `No such coin: ${COIN}`]);
      await enable(s, [server.tcp!]);
      const want = await expected();
      assert.equal(want.length, RECEIVES.length + SENDS.length + 1);
      const result = await untilFinished(s, want.length);
      const tip = await node.rpc<number>('getblockcount');
      assert.equal(result.current_block, tip);
      assert.deepEqual(
        result.transactions.map((t: any) => [t.tx_hash, t.my_balance_change, t.fee_details?.amount, t.confirmations, t.block_height, t.timestamp]),
        want.map((w) => [w.txid, formatAmount(w.balanceChange, 8), formatAmount(w.fee, 8), w.confirmations, w.blockHeight, w.blockTime]),
      );
      // the reference's entry shape, key order included
      const first = result.transactions.at(-1);
      assert.deepEqual(Object.keys(first), ['tx_hex', 'tx_hash', 'from', 'to', 'total_amount', 'spent_by_me', 'received_by_me', 'my_balance_change', 'block_height', 'timestamp', 'fee_details', 'coin', 'internal_id', 'transaction_type', 'memo', 'confirmations']);
      assert.equal(first.internal_id, first.tx_hash);
      assert.deepEqual([first.coin, first.transaction_type, first.memo, first.fee_details.type, first.fee_details.coin], [COIN, 'StandardTransfer', null, 'Utxo', COIN]);
      const send = result.transactions.find((t: any) => t.spent_by_me !== '0');
      assert.ok(send.from.includes(address) && send.to.includes(elsewhere), JSON.stringify(send));
      assert.equal(BigInt(Math.round(Number(send.total_amount) * 1e8)) > 0n, true);
      assert.deepEqual(Object.keys(result), ['coin', 'target', 'current_block', 'transactions', 'sync_status', 'limit', 'skipped', 'total', 'total_pages', 'paging_options']);
      assert.deepEqual(result.target, { type: 'iguana' });
      const ids = want.map((w) => w.txid);

      // pages and FromId (v2): an unknown FromId is an empty page, as the reference
      const page2 = (await history(s, { limit: 5, paging_options: { PageNumber: 2 } })).body.result;
      assert.deepEqual([page2.transactions.map((t: any) => t.tx_hash), page2.skipped, page2.total, page2.total_pages], [ids.slice(5, 10), 5, 12, 3]);
      const after3 = (await history(s, { limit: 4, paging_options: { FromId: ids[3] } })).body.result;
      assert.deepEqual([after3.transactions.map((t: any) => t.tx_hash), after3.skipped, after3.paging_options], [ids.slice(4, 8), 4, { FromId: ids[3] }]);
      const unknown = (await history(s, { paging_options: { FromId: 'ab'.repeat(32) } })).body.result;
      assert.deepEqual([unknown.transactions, unknown.skipped, unknown.total], [[], 0, 12]);
      // the spec's history filter on a wallet without an HD account: only iguana
      const account = await history(s, { target: { type: 'account_id', account_id: 0 } });
      assert.deepEqual([account.status, account.body.error_type], [400, 'InvalidTarget']);

      // legacy: pages, max, from_id (an unknown one is an error there), the request echoed
      const legacy = (await s.legacy('my_tx_history', { coin: COIN, limit: 5, page_number: 3 })).body.result;
      assert.deepEqual(
        [legacy.transactions.map((t: any) => t.tx_hash), legacy.skipped, legacy.total, legacy.total_pages, legacy.page_number, legacy.from_id, legacy.sync_status, legacy.current_block],
        [ids.slice(10), 10, 12, 3, 3, null, { state: 'Finished' }, tip],
      );
      const all = (await s.legacy('my_tx_history', { coin: COIN, max: true, from_id: ids[0] })).body.result;
      assert.deepEqual([all.transactions.length, all.limit, all.skipped], [11, 12, 1]);
      // legacy target: filters as in v2 (the reference's client's account shape refused on an Iguana wallet)
      assert.equal((await s.legacy('my_tx_history', { coin: COIN, target: { type: 'iguana' } })).body.result.total, 12);
      const sdkTarget = await s.legacy('my_tx_history', { coin: COIN, target: { type: 'account_id', id: 0 } });
      assert.deepEqual([sdkTarget.status, sdkTarget.body], [500, { error: 'Expected "Iguana" target, found: account_id' }]);
      const missing = await s.legacy('my_tx_history', { coin: COIN, from_id: 'cd'.repeat(32) });
      assert.deepEqual([missing.status, missing.body], [500, { error: `from_id ${'cd'.repeat(32)} is not found` }]);

      // one HistorySyncStarted and one HistorySynced for the pass: no event per transaction
      assert.deepEqual(
        (await historyEvents(s)).map((e) => `${e.type} ${JSON.stringify(e.data)}`),
        [`HistorySyncStarted {"ticker":"${COIN}","transactionsLeft":12,"block":${tip}}`, `HistorySynced {"ticker":"${COIN}","total":12,"added":12,"block":${tip}}`],
      );
    } finally {
      await s.stop();
    }
  });

  test('a new transaction is heard from the balance watcher\'s subscription and fetched alone, pushed on stream::tx_history; its block confirms it', async () => {
    const s = await startStack({ devnet, extraCoins: COINS });
    const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
    const client = await SseClient.connect(`${s.service.url}/event-stream?id=3`, { headers: bearer });
    try {
      await client.waitFor((f) => f.event === 'ready');
      await enable(s, [server.tcp!]);
      const before = (await untilFinished(s)).total as number;
      const enabled = await s.v2('stream::tx_history::enable', { coin: COIN, client_id: 3 });
      assert.deepEqual(enabled.body.result, { streamer_id: `TX_HISTORY:${COIN}` });
      assert.equal((await s.v2('stream::tx_history::enable', { coin: 'ETH', client_id: 3 })).body.error_type, 'CoinNotFound');
      const hits = server.hits.length;
      const txid = await wallets.sendMany({ [address]: 1_230_000n });
      const frame = await client.waitFor((f) => f.data.includes(`TX_HISTORY:${COIN}`));
      const pushed = JSON.parse(frame.data);
      assert.deepEqual([pushed.message.tx_hash, pushed.message.received_by_me, pushed.message.block_height, 'confirmations' in pushed.message], [txid, '0.0123', 0, false]);
      const now = await untilFinished(s, before + 1);
      // two unconfirmed entries now (ordered by hash), both before every confirmed one
      const fresh = now.transactions.findIndex((t: any) => t.tx_hash === txid);
      assert.ok(fresh === 0 || fresh === 1, String(fresh));
      assert.deepEqual([now.transactions[fresh].confirmations, now.transactions[fresh].timestamp, now.transactions[2].block_height > 0], [0, 0, true]);
      // no rescan: the pass fetched the new transaction alone
      const started = (await historyEvents(s)).filter((e) => e.type === 'HistorySyncStarted' && e.metadata.sessionId === s.service.sessionId);
      assert.deepEqual(started.map((e) => (e.data as { transactionsLeft: number }).transactionsLeft), [before, 1]);
      assert.equal(server.hits.slice(hits).filter((m) => m === 'blockchain.scripthash.subscribe').length, 0, 'nothing subscribed twice');
      const [block] = await node.mine(1);
      const blockTime = (await node.rpc<{ time: number }>('getblockheader', [block])).time;
      for (const deadline = Date.now() + 10_000; ; ) {
        const top = (await history(s)).body.result.transactions.find((t: any) => t.tx_hash === txid);
        if (top.block_height > 0) {
          assert.deepEqual([top.confirmations, top.timestamp], [1, blockTime]);
          break;
        }
        assert.ok(Date.now() < deadline, 'the block to confirm the entry');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      client.close();
      await s.stop();
    }
  });

  test('a restart mid-sync continues from the kept chunks; a server that drops mid-sync is replaced by the next', async () => {
    const dbdir = await mkdtemp(join(tmpdir(), 'history-restart-'));
    const relay = await startTcpLatencyRelay(server.tcp!, 40);
    try {
      const total = (await expected()).length;
      // first run: slow server, 2 transactions per chunk; stopped once some chunks are kept
      const first = await startStack({ devnet, extraCoins: COINS, dbdir, history: { chunk: 2 } });
      try {
        await enable(first, [relay.address]);
        for (const deadline = Date.now() + 20_000; ; ) {
          const status = (await history(first)).body.result.sync_status;
          if (status.state === 'InProgress' && status.additional_info.transactions_left <= total - 4) break;
          assert.ok(Date.now() < deadline && status.state !== 'Finished', JSON.stringify(status));
          await new Promise((r) => setTimeout(r, 5));
        }
      } finally {
        await first.stop();
      }
      // second run over the same dbdir: the kept entries are not fetched again; its first server drops mid-sync
      const second = await startStack({ devnet, extraCoins: COINS, dbdir, history: { chunk: 2 } });
      try {
        await enable(second, [relay.address, server.tcp!], { max_connected: 1 });
        for (const deadline = Date.now() + 20_000; ; ) {
          const status = (await history(second)).body.result.sync_status;
          if (status.state === 'InProgress') break;
          assert.ok(Date.now() < deadline && status.state !== 'Finished', JSON.stringify(status));
          await new Promise((r) => setTimeout(r, 5));
        }
        await relay.stop(); // its connection cut, reconnects refused: the pool's next server answers
        const result = await untilFinished(second);
        assert.deepEqual(result.transactions.map((t: any) => t.tx_hash), (await expected()).map((w) => w.txid));
        const events = (await historyEvents(second)).filter((e) => e.metadata.sessionId === second.service.sessionId);
        const started = events.find((e) => e.type === 'HistorySyncStarted');
        assert.ok(started?.type === 'HistorySyncStarted' && started.data.transactionsLeft <= total - 4, JSON.stringify(events));
        assert.ok(!events.some((e) => e.type === 'HistorySyncFailed'), JSON.stringify(events));
      } finally {
        await second.stop();
      }
    } finally {
      await relay.stop();
      await rm(dbdir, { recursive: true, force: true });
    }
  });

  test('a server that refuses the history call: sync_status Error with its reason and one HistorySyncFailed; the coin stays enabled and answers', async () => {
    const refusing = await startElectrumServer({ litecoind: node, transports: ['TCP'], refuse: { 'blockchain.scripthash.get_history': 'history too large' } });
    const s = await startStack({ devnet, extraCoins: COINS });
    try {
      await enable(s, [refusing.tcp!]);
      let status: any;
      for (const deadline = Date.now() + 10_000; (status = (await history(s)).body.result.sync_status).state !== 'Error'; await new Promise((r) => setTimeout(r, 20))) {
        assert.ok(Date.now() < deadline, JSON.stringify(status));
      }
      assert.deepEqual(status, { state: 'Error', additional_info: { code: 1, message: 'blockchain.scripthash.get_history: history too large' } });
      const failed = (await historyEvents(s)).map((e) => e.type);
      assert.deepEqual(failed, ['HistorySyncFailed']);
      const balance = await s.legacy('my_balance', { coin: COIN });
      assert.deepEqual([balance.status, balance.body.address], [200, address]);
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins.map((c: any) => c.ticker), [COIN]);
    } finally {
      await s.stop();
      await refusing.stop();
    }
  });
});
