import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface, toQuantity } from 'ethers';
import { startLatencyProxy, type EvmDevnet, type LatencyProxy } from '../../devnet/index.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, TEST_PASSWORD, devnetCoins, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import type { StoredEvent } from '../../spec/events.ts';

/**
 * Balances watched once per block per node (issue 24), against the devnet chain behind a counting
 * proxy: ETH with USDT-ERC20 (`enable_eth_with_tokens`) and DAI-ERC20 on its own (legacy `enable`)
 * read through the same node, on a manual clock.
 */

const POLL_S = 5;
const POLL = POLL_S * 1000;
const erc20 = new Interface(['function mint(address to, uint256 amount)']);

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: 2n * 10n ** 18n,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 5_000_000n }, { symbol: 'DAI', decimals: 18, amount: 10n ** 18n }],
  });
});
after(() => devnet.stop());

interface Harness {
  readonly s: Stack;
  readonly clock: ManualClock;
  readonly proxy: LatencyProxy;
  stop(): Promise<void>;
}

/** A service whose coins file sets the platform's `balance_poll_s`, with both coins enabled through one counting proxy. */
async function harness(): Promise<Harness> {
  const clock = new ManualClock();
  const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
  const coins = devnetCoins(devnet).map((c) => {
    const entry = c as { coin: string };
    return entry.coin === 'ETH' || entry.coin === 'DAI-ERC20' ? { ...entry, balance_poll_s: POLL_S } : entry;
  });
  const s = await startStack({ devnet, clock, coins });
  const eth = await s.v2('enable_eth_with_tokens', {
    ticker: 'ETH',
    nodes: [{ url: proxy.url }],
    swap_contract_address: SWAP_CONTRACT,
    fallback_swap_contract: SWAP_CONTRACT,
    erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }],
  });
  assert.equal(eth.status, 200, JSON.stringify(eth.body));
  const dai = await s.legacy('enable', { coin: 'DAI-ERC20', urls: [proxy.url], swap_contract_address: SWAP_CONTRACT });
  assert.equal(dai.status, 200, JSON.stringify(dai.body));
  await eventually(() => s.service.registry.balanceWatchers === 1 && watchedCoins(s) === 2, 'both coins to join the one watcher');
  return { s, clock, proxy, stop: async () => (await s.stop(), await proxy.stop()) };
}

/** How many coins the registry watches (through its watched values). */
function watchedCoins(s: Stack): number {
  return ['ETH', 'DAI-ERC20'].filter((t) => s.service.registry.watchedBalance(t, t, TEST_ADDRESS) !== undefined).length;
}

async function balanceEvents(s: Stack): Promise<string[]> {
  const out: string[] = [];
  for await (const e of s.service.log.read()) if (e.type === 'BalanceChanged') out.push(describeChange(e));
  return out;
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

function describeChange(e: StoredEvent): string {
  if (e.type !== 'BalanceChanged') return e.type;
  return `${e.metadata.stream} ${e.data.ticker} ${e.data.old.spendable} -> ${e.data.new.spendable}`;
}

/** Lets one poll interval pass and waits until the watcher waits for its next poll again. */
async function poll(h: Harness): Promise<void> {
  h.clock.advance(POLL);
  await eventually(() => h.clock.dueIn().includes(POLL), 'the poll (and any read) to end');
}

/** `my_balance` of the three coins, as `ticker: balance`. */
async function balances(s: Stack): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const coin of ['ETH', 'USDT-ERC20', 'DAI-ERC20']) {
    const { status, body } = await s.legacy('my_balance', { coin });
    assert.equal(status, 200, JSON.stringify(body));
    out[coin] = body.balance;
  }
  return out;
}

const send = (tx: Record<string, unknown>) => devnet.request('eth_sendTransaction', [{ from: devnet.deployer, ...tx }]);
const tokenAddress = (symbol: string) => devnet.tokens.find((t) => t.symbol === symbol)!.address;
const mint = (symbol: string, amount: bigint) => send({ to: tokenAddress(symbol), data: erc20.encodeFunctionData('mint', [TEST_ADDRESS, amount]) });

describe('balances watched per node, once per block', () => {
  test('Given two coins on one node, When nothing happens on the chain, Then each poll is one eth_blockNumber and nothing is written', async () => {
    const h = await harness();
    try {
      // before the first poll the watcher has confirmed nothing: my_balance asks the node
      h.proxy.reset();
      assert.deepEqual(await balances(h.s), { ETH: '2', 'USDT-ERC20': '5', 'DAI-ERC20': '1' });
      assert.equal(h.proxy.stats().httpRequests, 3);
      h.proxy.reset();
      await poll(h);
      await poll(h);
      const stats = h.proxy.stats();
      assert.equal(stats.httpRequests, 2, JSON.stringify(stats));
      assert.deepEqual(stats.byMethod, { eth_blockNumber: 2 });
      assert.deepEqual(await balanceEvents(h.s), []);
    } finally {
      await h.stop();
    }
  });

  test('When a transfer and a mint land in new blocks, Then one read per block for both coins and one BalanceChanged per change', async () => {
    const h = await harness();
    try {
      await send({ to: TEST_ADDRESS, value: toQuantity(10n ** 18n) });
      await mint('DAI', 5n * 10n ** 17n);
      h.proxy.reset();
      await poll(h);
      const stats = h.proxy.stats();
      assert.equal(stats.httpRequests, 2, `one poll and one read: ${JSON.stringify(stats)}`);
      assert.deepEqual(await untilBalanceEvents(h.s, 2), ['coin.ETH ETH 2 -> 3', 'coin.DAI-ERC20 DAI-ERC20 1 -> 1.5']);
      // the next block changes USDT only
      await mint('USDT', 2_500_000n);
      h.proxy.reset();
      await poll(h);
      assert.equal(h.proxy.stats().httpRequests, 2);
      assert.deepEqual((await untilBalanceEvents(h.s, 3)).slice(2), ['coin.ETH USDT-ERC20 5 -> 7.5']);
      // my_balance answers the new amounts from the watcher, without a node call
      h.proxy.reset();
      assert.deepEqual(await balances(h.s), { ETH: '3', 'USDT-ERC20': '7.5', 'DAI-ERC20': '1.5' });
      assert.equal(h.proxy.stats().httpRequests, 0);
    } finally {
      await h.stop();
    }
  });

  test('When the coins are disabled, Then the watcher stops: no timer, no node call', async () => {
    const h = await harness();
    try {
      assert.equal((await h.s.legacy('disable_coin', { coin: 'DAI-ERC20' })).status, 200);
      await poll(h); // ETH alone still watched
      assert.equal(h.s.service.registry.balanceWatchers, 1);
      assert.equal((await h.s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      assert.equal(h.s.service.registry.balanceWatchers, 0);
      assert.deepEqual(h.clock.dueIn(), []);
      h.proxy.reset();
      h.clock.advance(10 * POLL);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(h.proxy.stats().httpRequests, 0);
    } finally {
      await h.stop();
    }
  });

  test('stream::balance::enable: a transfer reaches /event-stream as one BALANCE:<coin> frame (the platform hears its tokens) and /events as one BalanceChanged; stream::disable stops it', async () => {
    const h = await harness();
    const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
    const client = await SseClient.connect(`${h.s.service.url}/event-stream?id=0`, { headers: bearer });
    const events = await SseClient.connect(`${h.s.service.url}/events?type=BalanceChanged`, { headers: bearer });
    try {
      await client.waitFor((f) => f.event === 'ready');
      await events.waitFor((f) => f.event === 'ready');
      // the reference's errors: a coin not enabled, a config, a second enable
      const missing = await h.s.v2('stream::balance::enable', { coin: 'BNB' });
      assert.deepEqual([missing.status, missing.body.error_type], [404, 'CoinNotFound']);
      const config = await h.s.v2('stream::balance::enable', { coin: 'ETH', config: { stream_interval_seconds: 1 } });
      assert.deepEqual([config.status, config.body.error_type], [400, 'EnableError']);
      const ok = await h.s.post({ method: 'stream::balance::enable', mmrpc: '2.0', params: { coin: 'ETH', client_id: 0 }, userpass: TEST_PASSWORD });
      assert.deepEqual([ok.status, ok.body], [200, { mmrpc: '2.0', result: { streamer_id: 'BALANCE:ETH' }, id: null }]);
      assert.equal((await h.s.v2('stream::balance::enable', { coin: 'ETH' })).body.error_data, 'ClientAlreadyListening');
      assert.equal((await h.s.v2('stream::balance::enable', { coin: 'DAI-ERC20', client_id: 4 })).body.error_data, 'UnknownClient');

      // the devnet is shared by the tests of this file: the balance before, from the node
      const before = Number((await balances(h.s))['USDT-ERC20']);
      await mint('USDT', 1_000_000n);
      await poll(h);
      const frame = await client.waitFor((f) => f.data.includes('BALANCE:'));
      assert.deepEqual(JSON.parse(frame.data), { _type: 'BALANCE:ETH', message: [{ ticker: 'USDT-ERC20', address: TEST_ADDRESS, balance: { spendable: String(before + 1), unspendable: '0' } }] });
      const logged = await events.waitFor((f) => f.event !== 'ready' && f.data.includes('BalanceChanged'));
      assert.equal(JSON.parse(logged.data).data.new.spendable, String(before + 1));

      const off = await h.s.v2('stream::disable', { client_id: 0, streamer_id: 'BALANCE:ETH' });
      assert.deepEqual([off.status, off.body.result], [200, { result: 'Success' }]);
      assert.equal((await h.s.v2('stream::disable', { client_id: 0, streamer_id: 'BALANCE:ETH' })).body.error_data, 'StreamerNotFound');
      await mint('USDT', 1_000_000n);
      await poll(h);
      await untilBalanceEvents(h.s, 2);
      await events.waitFor((f) => f.data.includes(`"${before + 2}"`));
      assert.equal(client.frames.filter((f) => f.data.includes('BALANCE:')).length, 1, 'nothing after stream::disable');
    } finally {
      client.close();
      events.close();
      await h.stop();
    }
  });

  test('TRON, polled the same way: a TRC20 mint is one BalanceChanged on the TRX stream, one BALANCE:TRX frame on /event-stream, my_balance answers it without a node call; disabling stops the watcher', async () => {
    const clock = new ManualClock();
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'TRX' ? { ...(c as object), balance_poll_s: POLL_S } : c));
    const s = await startStack({ devnet, clock, coins, tron: true });
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', enableTrxParams(s, ['DAI-TRC20']));
      assert.equal(status, 200, JSON.stringify(body));
      await eventually(() => s.service.registry.balanceWatchers === 1, 'the TRX watcher');
      const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
      const client = await SseClient.connect(`${s.service.url}/event-stream?id=3`, { headers: bearer });
      const stream = await SseClient.connect(`${s.service.url}/events?type=BalanceChanged`, { headers: bearer });
      await client.waitFor((f) => f.event === 'ready');
      await stream.waitFor((f) => f.event === 'ready');
      assert.equal((await s.v2('stream::balance::enable', { coin: 'TRX', client_id: 3 })).status, 200);
      const before = Number((await s.legacy('my_balance', { coin: 'DAI-TRC20' })).body.balance);
      await mint('DAI', 10n ** 18n);
      clock.advance(POLL);
      const events = await untilBalanceEvents(s, 1);
      assert.deepEqual(events, [`coin.TRX DAI-TRC20 ${before} -> ${before + 1}`]);
      // The same change on both streams, once: the reference's frame and the logged event.
      const frame = await client.waitFor((f) => f.data.includes('BALANCE:'));
      const { _type, message } = JSON.parse(frame.data);
      assert.deepEqual([_type, message.length, message[0].ticker, message[0].balance.spendable], ['BALANCE:TRX', 1, 'DAI-TRC20', String(before + 1)]);
      const logged = await stream.waitFor((f) => f.event !== 'ready' && f.data.includes('BalanceChanged'));
      assert.equal(JSON.parse(logged.data).data.new.spendable, String(before + 1));
      client.close();
      stream.close();
      await eventually(() => clock.dueIn().includes(POLL), 'the poll to end');
      const hits = s.tron!.hits.length;
      assert.equal((await s.legacy('my_balance', { coin: 'DAI-TRC20' })).body.balance, String(before + 1));
      assert.equal(s.tron!.hits.length, hits, 'my_balance asked the TRON node nothing');
      assert.equal((await s.legacy('disable_coin', { coin: 'TRX' })).status, 200);
      assert.equal(s.service.registry.balanceWatchers, 0);
      assert.deepEqual(clock.dueIn(), []);
    } finally {
      await s.stop();
    }
  });

  test('When the node a watcher reads through stops answering, Then the read fails over to the next node of the coin and the change is seen', async () => {
    const clock = new ManualClock();
    const first = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const second = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), balance_poll_s: POLL_S } : c));
    const s = await startStack({ devnet, clock, coins });
    try {
      const params = { ticker: 'ETH', nodes: [{ url: first.url }, { url: second.url }], swap_contract_address: SWAP_CONTRACT, fallback_swap_contract: SWAP_CONTRACT, erc20_tokens_requests: [] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      await eventually(() => s.service.registry.balanceWatchers === 1, 'the watcher');
      const before = Number(body.result.eth_addresses_infos[TEST_ADDRESS].balances.spendable);
      await first.stop(); // refuses connections from now on
      await send({ to: TEST_ADDRESS, value: toQuantity(10n ** 18n) });
      second.reset();
      clock.advance(POLL);
      assert.deepEqual(await untilBalanceEvents(s, 1), [`coin.ETH ETH ${before} -> ${before + 1}`]);
      assert.ok(second.stats().httpRequests >= 2, 'the poll and the read went to the second node');
    } finally {
      await s.stop();
      await second.stop();
    }
  });

  test('Given a node with a ws_url, Then its heads are followed over one subscription: a transfer is read without any poll, and the clock polls nothing', async () => {
    const clock = new ManualClock();
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' || (c as { coin: string }).coin === 'DAI-ERC20' ? { ...(c as object), balance_poll_s: POLL_S } : c));
    const s = await startStack({ devnet, clock, coins });
    const subscriptionsBefore = devnet.headSubscriptions();
    try {
      const nodes = [{ url: proxy.url, ws_url: devnet.wsUrl }];
      const eth = await s.v2('enable_eth_with_tokens', { ticker: 'ETH', nodes, swap_contract_address: SWAP_CONTRACT, fallback_swap_contract: SWAP_CONTRACT, erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }] });
      assert.equal(eth.status, 200, JSON.stringify(eth.body));
      // legacy enable lists the same endpoints as urls: the same node list, the same watcher
      const dai = await s.legacy('enable', { coin: 'DAI-ERC20', urls: [proxy.url, devnet.wsUrl], swap_contract_address: SWAP_CONTRACT });
      assert.equal(dai.status, 200, JSON.stringify(dai.body));
      await eventually(() => s.service.registry.balanceWatchers === 1 && devnet.headSubscriptions() === subscriptionsBefore + 1, 'one head subscription for the node');
      proxy.reset();
      clock.advance(3 * POLL);
      assert.equal(proxy.stats().httpRequests, 0, 'no poll while heads are pushed');
      const before = (await balanceEvents(s)).length;
      await mint('DAI', 10n ** 17n);
      await mint('USDT', 100_000n);
      const events = (await untilBalanceEvents(s, before + 2)).slice(before);
      assert.deepEqual(events.map((e) => e.split(' ').slice(0, 2).join(' ')).sort(), ['coin.DAI-ERC20 DAI-ERC20', 'coin.ETH USDT-ERC20']);
      assert.ok(proxy.stats().httpRequests <= 2, `at most one read per block: ${JSON.stringify(proxy.stats())}`);
      assert.equal(proxy.stats().byMethod.eth_blockNumber, proxy.stats().httpRequests, 'each read carries its block number');
      assert.equal((await s.legacy('disable_coin', { coin: 'DAI-ERC20' })).status, 200);
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      await eventually(() => devnet.headSubscriptions() === subscriptionsBefore, 'the subscription to end with the last coin');
      assert.deepEqual(clock.dueIn(), []);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });
});
