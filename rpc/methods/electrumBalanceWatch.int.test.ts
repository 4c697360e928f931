import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { LITECOIN_REGTEST, p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { startStack, TEST_PASSPHRASE, TEST_PASSWORD, type Stack } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { formatAmount, parseAmount } from '../../spec/amount.ts';

/**
 * An Electrum coin's balance watched by script-hash subscriptions (issue 24), through the RPC,
 * against the devnet Electrum server over regtest litecoind, on a manual clock (no poll ever runs:
 * everything seen is pushed by the server).
 */

const COIN = 'LTCR';
const SEGWIT = 'LTCW';
/** A second ticker of the same chain and key: the same address, hence the same script hash. */
const TWIN = 'LTCR2';
const COINS = [
  { coin: COIN, name: 'litecoin', mm2: 1, pubtype: 111, decimals: 8, protocol: { type: 'UTXO' } },
  { coin: TWIN, mm2: 1, pubtype: 111, decimals: 8, protocol: { type: 'UTXO' } },
  { coin: SEGWIT, mm2: 1, pubtype: 111, segwit: true, bech32_hrp: 'rltc', address_format: { format: 'segwit' }, decimals: 8, protocol: { type: 'UTXO' } },
];

let node: Litecoind;
let server: ElectrumServer;
let address: string;
let segwitAddress: string;

before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: COIN });
  address = p2pkhAddress(Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex'));
  segwitAddress = payments.p2wpkh({ hash: Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))), network: LITECOIN_REGTEST }).address!;
  node = await startLitecoind();
  await node.fund(address, 100_000_000n, 1); // 1 LTC
  server = await startElectrumServer({ litecoind: node, transports: ['TCP'], pollMs: 50 });
});
after(async () => {
  await server?.stop();
  await node?.stop();
});

/** The service with LTCR enabled over the devnet server, once its watcher has subscribed the wallet's script. */
async function enabled(clock = new ManualClock()): Promise<Stack> {
  const s = await startStack({ extraCoins: COINS, clock });
  const { status, body } = await s.legacy('electrum', { coin: COIN, servers: [{ url: server.tcp!, protocol: 'TCP' }] });
  assert.equal(status, 200, JSON.stringify(body));
  await eventually(() => s.service.registry.balanceWatchers === 1 && s.service.registry.watchedBalance(COIN, COIN, address) !== undefined, 'the coin to join a watcher');
  await eventually(() => server.hits.includes('blockchain.scripthash.subscribe'), 'the script hash to be subscribed');
  return s;
}

async function balanceEvents(s: Stack): Promise<string[]> {
  const out: string[] = [];
  for await (const e of s.service.log.read()) if (e.type === 'BalanceChanged') out.push(describeChange(e));
  return out;
}

function describeChange(e: StoredEvent): string {
  if (e.type !== 'BalanceChanged') return e.type;
  return `${e.metadata.stream} ${e.data.ticker} ${e.data.old.spendable} -> ${e.data.new.spendable}`;
}

/** Waits until the log holds `count` balance events (appends are written asynchronously) and returns them. */
async function untilBalanceEvents(s: Stack, count: number): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const events = await balanceEvents(s);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Waits until the server has received nothing for 150 ms (a read in progress has ended). */
async function settled(): Promise<void> {
  for (let seen = -1; seen !== server.hits.length; ) {
    seen = server.hits.length;
    await new Promise((r) => setTimeout(r, 150));
  }
}

const hitsSince = (from: number) => server.hits.slice(from);

describe('an Electrum coin watched by script-hash subscriptions', () => {
  test('When a transfer reaches the wallet, Then one BalanceChanged and my_balance answers it without a server call; its confirmation changes nothing', async () => {
    const s = await enabled();
    try {
      const balance = (await s.legacy('my_balance', { coin: COIN })).body.balance as string;
      const before = server.hits.length;
      await node.fund(address, 10_000_000n, 0); // 0.1 LTC in the mempool: no new block
      const now = formatAmount(parseAmount(balance, 8) + 10_000_000n, 8);
      assert.deepEqual(await untilBalanceEvents(s, 1), [`coin.${COIN} ${COIN} ${balance} -> ${now}`]);
      // one balance read (one batch, opened by its tip), nothing subscribed again
      const calls = hitsSince(before);
      assert.equal(calls.filter((m) => m === 'blockchain.headers.subscribe').length, 1, JSON.stringify(calls));
      assert.ok(calls.includes('blockchain.scripthash.get_balance') && !calls.includes('blockchain.scripthash.subscribe'), JSON.stringify(calls));
      const read = server.hits.length;
      const mine = await s.legacy('my_balance', { coin: COIN });
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      assert.equal(mine.body.balance, now);
      assert.deepEqual(hitsSince(read), [], 'my_balance answered from the watched value');
      // the transfer confirms: the status changes, the balance does not: read again, nothing written
      await node.mine(1);
      await eventually(() => hitsSince(read).includes('blockchain.scripthash.get_balance'), 'the confirmed status to be read');
      await settled();
      assert.equal((await balanceEvents(s)).length, 1);
      // a block that touches nothing of the wallet: its header is pushed, no balance is read
      const quiet = server.hits.length;
      await node.mine(1);
      await new Promise((r) => setTimeout(r, 300)); // several notifier rounds
      assert.deepEqual(hitsSince(quiet), []);
      assert.equal((await balanceEvents(s)).length, 1);
    } finally {
      await s.stop();
    }
  });

  test('stream::balance::enable: a regtest transfer reaches /event-stream as one BALANCE:LTCR frame and /events as one BalanceChanged, and my_balance answers it without a server call', async () => {
    const s = await enabled();
    const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
    const client = await SseClient.connect(`${s.service.url}/event-stream?id=5`, { headers: bearer });
    const events = await SseClient.connect(`${s.service.url}/events?type=BalanceChanged`, { headers: bearer });
    try {
      await client.waitFor((f) => f.event === 'ready');
      await events.waitFor((f) => f.event === 'ready');
      const on = await s.v2('stream::balance::enable', { coin: COIN, client_id: 5 });
      assert.deepEqual([on.status, on.body.result], [200, { streamer_id: `BALANCE:${COIN}` }]);
      const balance = (await s.legacy('my_balance', { coin: COIN })).body.balance as string;
      await settled();
      await node.fund(address, 2_500_000n, 0);
      const now = formatAmount(parseAmount(balance, 8) + 2_500_000n, 8);
      const frame = await client.waitFor((f) => f.data.includes('BALANCE:'));
      assert.deepEqual(JSON.parse(frame.data), { _type: `BALANCE:${COIN}`, message: [{ ticker: COIN, address, balance: { spendable: now, unspendable: '0' } }] });
      const logged = await events.waitFor((f) => f.event !== 'ready' && f.data.includes('BalanceChanged'));
      assert.deepEqual(JSON.parse(logged.data).data, { ticker: COIN, platform: COIN, address, old: { spendable: balance, unspendable: '0' }, new: { spendable: now, unspendable: '0' }, block: JSON.parse(logged.data).data.block });
      await settled();
      const hits = server.hits.length;
      assert.equal((await s.legacy('my_balance', { coin: COIN })).body.balance, now);
      assert.equal(server.hits.length, hits, 'my_balance asked the server nothing');
      assert.equal(client.frames.filter((f) => f.data.includes('BALANCE:')).length, 1, 'one frame');
      assert.equal(events.frames.filter((f) => f.data.includes('BalanceChanged')).length, 1, 'one event');
    } finally {
      client.close();
      events.close();
      await s.stop();
    }
  });

  test('When the coin is disabled, Then its watcher stops and its subscriptions end with its connection', async () => {
    const s = await enabled();
    try {
      assert.equal(server.openSessions(), 1);
      assert.equal((await s.legacy('disable_coin', { coin: COIN })).status, 200);
      assert.equal(s.service.registry.balanceWatchers, 0);
      await eventually(() => server.openSessions() === 0, 'the session to close');
      const after = server.hits.length;
      await node.fund(address, 1_000_000n, 0);
      await new Promise((r) => setTimeout(r, 300)); // several notifier rounds: nobody is subscribed
      assert.deepEqual(hitsSince(after), []);
      assert.deepEqual(await balanceEvents(s), []);
    } finally {
      await s.stop();
    }
  });

  test('When the server goes away and comes back, Then the watcher polls, subscribes again on the new connection, and a transfer is one BalanceChanged', async () => {
    const clock = new ManualClock();
    const s = await enabled(clock);
    try {
      const port = Number(server.tcp!.split(':').at(-1));
      await server.stop();
      await eventually(() => s.service.registry.watchedBalance(COIN, COIN, address) !== undefined && server.openSessions() === 0, 'the connection to close');
      server = await startElectrumServer({ litecoind: node, transports: ['TCP'], ports: { TCP: port }, pollMs: 50 });
      // the pool's suspension (10 s ± 20 %) and the watcher's poll run on the manual clock
      for (let i = 0; i < 10 && !server.hits.includes('blockchain.scripthash.subscribe'); i++) {
        clock.advance(5_000);
        await settled();
      }
      assert.ok(server.hits.includes('blockchain.scripthash.subscribe'), JSON.stringify(server.hits));
      const balance = (await s.legacy('my_balance', { coin: COIN })).body.balance as string;
      await settled();
      await node.fund(address, 5_000_000n, 0);
      const now = formatAmount(parseAmount(balance, 8) + 5_000_000n, 8);
      assert.deepEqual(await untilBalanceEvents(s, 1), [`coin.${COIN} ${COIN} ${balance} -> ${now}`]);
    } finally {
      await s.stop();
    }
  });

  test('Given two coins paid by one script on one server, When a transfer reaches it, Then both are read in one request, each call once', async () => {
    const s = await enabled();
    try {
      const { status, body } = await s.legacy('electrum', { coin: TWIN, servers: [{ url: server.tcp!, protocol: 'TCP' }] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.address, address);
      await eventually(() => s.service.registry.watchedBalance(TWIN, TWIN, address) !== undefined, 'the second coin to join');
      await settled();
      const balance = (await s.legacy('my_balance', { coin: COIN })).body.balance as string;
      const before = server.requests.length;
      await node.fund(address, 4_000_000n, 0);
      const now = formatAmount(parseAmount(balance, 8) + 4_000_000n, 8);
      assert.deepEqual((await untilBalanceEvents(s, 2)).sort(), [`coin.${COIN} ${COIN} ${balance} -> ${now}`, `coin.${TWIN} ${TWIN} ${balance} -> ${now}`]);
      await settled();
      // One notification of the shared script, one read of both coins: a single batch, no call twice.
      const reads = server.requests.slice(before);
      assert.equal(reads.length, 1, JSON.stringify(reads));
      // The tip, then each of the wallet's two scripts (P2PKH and P2PK) once, not once per coin.
      const count = (method: string) => reads[0]!.filter((m) => m === method).length;
      assert.deepEqual([count('blockchain.headers.subscribe'), count('blockchain.scripthash.get_balance'), count('blockchain.scripthash.listunspent')], [1, 2, 2], JSON.stringify(reads));
    } finally {
      await s.stop();
    }
  });

  test('Given two coins on the same server, Then one watcher; a transfer to the coin that joined it is one BalanceChanged, pushed', async () => {
    const s = await enabled();
    try {
      const { status, body } = await s.legacy('electrum', { coin: SEGWIT, servers: [{ url: server.tcp!, protocol: 'TCP' }] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.address, segwitAddress);
      await eventually(() => s.service.registry.watchedBalance(SEGWIT, SEGWIT, segwitAddress) !== undefined, 'the second coin to join');
      assert.equal(s.service.registry.balanceWatchers, 1);
      await settled(); // the joined coin's read and subscription
      const balance = (await s.legacy('my_balance', { coin: SEGWIT })).body.balance as string;
      await node.fund(segwitAddress, 3_000_000n, 0);
      const now = formatAmount(parseAmount(balance, 8) + 3_000_000n, 8);
      assert.deepEqual(await untilBalanceEvents(s, 1), [`coin.${SEGWIT} ${SEGWIT} ${balance} -> ${now}`]);
    } finally {
      await s.stop();
    }
  });
});
