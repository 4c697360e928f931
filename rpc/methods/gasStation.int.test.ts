import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGasStation, GasStationMode, type EvmDevnet, type GasStation } from '../../devnet/index.ts';
import { SWAP_CONTRACT, devnetCoins, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { enabledTickers, eventually, startTask, untilFinished } from '../../devnet/testing/tasks.ts';
import { coinStream } from '../../events/log/eventLog.ts';

/** MM2.json `gas_station_refresh_s` of these tests. */
const INTERVAL_S = 30;
const INTERVAL = INTERVAL_S * 1000;
/**
 * The coins' `balance_poll_s` here: an hour, so the balance watcher's one timer stays out of the
 * refresh's way; {@link refreshTimers} leaves it out.
 */
const WATCH_POLL_S = 3600;
/** The clock's timers but the balance watcher's (due in more than half an hour). */
const refreshTimers = (h: { clock: ManualClock }) => h.clock.dueIn().filter((ms) => ms < (WATCH_POLL_S * 1000) / 2);
/** The station's own budget: the EVM family's per-node timeout. */
const STATION_TIMEOUT = 10_000;

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }] });
});
after(() => devnet.stop());

interface Harness {
  readonly s: Stack;
  readonly clock: ManualClock;
  readonly station: GasStation;
  stop(): Promise<void>;
}

async function harness(body: unknown = { fast: 1000, average: 500 }): Promise<Harness> {
  const clock = new ManualClock();
  const station = await startGasStation({ body });
  const s = await startStack({
    devnet,
    clock,
    config: { gas_station_refresh_s: INTERVAL_S },
    coins: devnetCoins(devnet).map((c) => ({ ...(c as object), balance_poll_s: WATCH_POLL_S })),
    extraCoins: [{ coin: 'KMD', mm2: 1, pubtype: 60, protocol: { type: 'UTXO' } }],
  });
  return { s, clock, station, stop: async () => (await s.stop(), await station.stop()) };
}

/** The gas price events of `ticker`'s stream, as `<type> <price or reason>`. */
async function gasEvents(s: Stack, ticker: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of s.service.log.read()) {
    if (e.metadata.stream !== coinStream(ticker)) continue;
    if (e.type === 'GasPriceUpdated') out.push(`GasPriceUpdated ${e.data.gasPriceWei}`);
    if (e.type === 'GasPriceStale') out.push(`GasPriceStale ${e.data.reason}`);
  }
  return out;
}

/** Every event type of `ticker`'s stream, in order. */
async function coinEventTypes(s: Stack, ticker: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of s.service.log.read()) if (e.metadata.stream === coinStream(ticker)) out.push(e.type);
  return out;
}

/** Waits until `ticker`'s stream holds `count` gas price events and returns them. */
async function untilGasEvents(s: Stack, ticker: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const events = await gasEvents(s, ticker);
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} gas price events of ${ticker}, got ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Lets one interval pass and waits until that refresh is over: the station was asked once more
 * and the refresh waits for its next turn (the one timer left is due a whole interval from now).
 */
async function refresh(h: Harness): Promise<void> {
  const hits = h.station.hits();
  h.clock.advance(INTERVAL);
  await eventually(() => h.station.hits() === hits + 1 && refreshTimers(h).join() === String(INTERVAL), 'the refresh to end');
}

/** `gas_station` of `coin_status`, or the error type when the coin is not enabled. */
async function gasStationOf(s: Stack, ticker: string): Promise<unknown> {
  const { status, body } = await s.v2('coin_status', { ticker });
  return status === 200 ? body.result.gas_station : body.error_type;
}

/** The default station settings (MeanAverageFast, decimals 8) with a price. */
const meanAverageFast = (gwei: string, updatedAt: number, stale = false) => ({
  policy: 'MeanAverageFast',
  decimals: 8,
  gas_price_gwei: gwei,
  updated_at: new Date(updatedAt).toISOString(),
  stale,
});

const GWEI = 1_000_000_000n;
const wei = (gwei: bigint) => String(gwei * GWEI);
const iso = (ms: number) => new Date(ms).toISOString();

describe('gas station: v2 activation', () => {
  test('enable_eth_with_tokens reads the station with the balances; its price is recorded after CoinActivated, the tokens share it', async () => {
    const h = await harness({ fast: 1000, average: 860 });
    try {
      const params = enableEthParams(h.s, ['USDT-ERC20'], { gas_station_url: h.station.url, gas_station_decimals: 9, gas_station_policy: { policy: 'Average' } });
      const { status, body } = await h.s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(h.station.hits(), 1);
      assert.deepEqual((await coinEventTypes(h.s, 'ETH')).slice(-2), ['CoinActivated', 'GasPriceUpdated']);
      // Average, decimals 9: 860 × 10^9 wei = 860 gwei (spec 4.1's example)
      const station = { policy: 'Average', decimals: 9, gas_price_gwei: '860', updated_at: iso(h.clock.now()), stale: false };
      assert.deepEqual(await gasStationOf(h.s, 'ETH'), station);
      assert.deepEqual(await gasStationOf(h.s, 'USDT-ERC20'), station, 'a token pays gas in its platform coin');
      assert.equal(h.s.service.registry.gasPriceRefreshes, 1);
    } finally {
      await h.stop();
    }
  });

  test('task::enable_eth::init reads the station too', async () => {
    const h = await harness();
    try {
      const id = await startTask(h.s, enableEthParams(h.s, [], { gas_station_url: h.station.url }));
      assert.equal((await untilFinished(h.s, id)).result.status, 'Ok');
      assert.deepEqual(await untilGasEvents(h.s, 'ETH', 1), [`GasPriceUpdated ${wei(75n)}`]);
      assert.equal(h.station.hits(), 1);
    } finally {
      await h.stop();
    }
  });

  test('a station failing at activation: Transport naming its origin only, nothing registered (both methods)', async () => {
    const h = await harness();
    try {
      h.station.answer(GasStationMode.Error);
      const origin = new URL(h.station.url).origin;
      const sentence = `Failed to get the gas price from the gas station ${origin}: HTTP 500 Internal Server Error`;
      const params = enableEthParams(h.s, ['USDT-ERC20'], { gas_station_url: h.station.url });
      const { status, body } = await h.s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 502, JSON.stringify(body));
      assert.equal(body.error_type, 'Transport');
      assert.equal(body.error_data, sentence);
      assert.doesNotMatch(JSON.stringify(body), /devnet-secret|ethgasAPI/);
      assert.deepEqual(await enabledTickers(h.s), []);
      const id = await startTask(h.s, params);
      const { result } = await untilFinished(h.s, id);
      assert.equal(result.status, 'Error');
      assert.equal(result.details.error_type, 'Transport');
      assert.equal(result.details.error_data, sentence);
      assert.deepEqual(await enabledTickers(h.s), []);
      assert.equal(h.s.service.registry.gasPriceRefreshes, 0);
      assert.equal(h.clock.pendingTimers, 0);
    } finally {
      await h.stop();
    }
  });

  test('refused before any chain work: a station URL that is not http(s), decimals or policy without a station', async () => {
    const h = await harness();
    try {
      const cases: [string, Record<string, unknown>, string][] = [
        ['a wss station', { gas_station_url: 'wss://station.example/SECRET' }, 'params.gas_station_url wss://station.example: expected an http:// or https:// URL'],
        ['decimals alone', { gas_station_decimals: 9 }, 'params.gas_station_decimals 9: given without params.gas_station_url, so it would have no effect; leave it out (or give its default, 8), or add the station\'s URL'],
        ['policy alone', { gas_station_policy: { policy: 'Average' } }, 'params.gas_station_policy {"policy":"Average"}: given without params.gas_station_url, so it would have no effect; leave it out (or give its default, {"policy":"MeanAverageFast"}), or add the station\'s URL'],
      ];
      for (const [name, fields, message] of cases) {
        const { status, body } = await h.s.v2('enable_eth_with_tokens', enableEthParams(h.s, [], fields));
        assert.equal(status, 400, name);
        assert.deepEqual([body.error_type, body.error_data], ['InvalidRequest', message], name);
      }
      const legacy = await h.s.legacy('enable', { coin: 'ETH', urls: [devnet.url], swap_contract_address: SWAP_CONTRACT, gas_station_decimals: 9 });
      assert.deepEqual(legacy.body, { error: "gas_station_decimals 9: given without gas_station_url, so it would have no effect; leave it out (or give its default, 8), or add the station's URL" });
      const utxo = await h.s.legacy('enable', { coin: 'KMD', gas_station_url: h.station.url });
      assert.deepEqual(utxo.body, { error: 'gas_station_url: KMD is a UTXO coin, whose fees no gas station prices; gas stations apply to EVM coins' });
      assert.equal(h.station.hits(), 0);
      assert.deepEqual(await enabledTickers(h.s), []);
    } finally {
      await h.stop();
    }
  });
});

describe('gas station: refreshed while the coin is active', () => {
  test('a change is one event; the same price none; failures one stale event, the price kept, the coin enabled; recovery fresh again; a passive platform is still read for its tokens, disabling stops it', async () => {
    const h = await harness({ fast: 1000, average: 500 }); // 75 gwei
    try {
      const params = enableEthParams(h.s, ['USDT-ERC20'], { gas_station_url: h.station.url });
      assert.equal((await h.s.v2('enable_eth_with_tokens', params)).status, 200);
      assert.deepEqual(await gasEvents(h.s, 'ETH'), [`GasPriceUpdated ${wei(75n)}`]);
      assert.deepEqual(refreshTimers(h), [INTERVAL], 'the next read waits one interval');

      h.station.answer(GasStationMode.Json, { fast: 1200, average: 600 }); // 90 gwei
      await refresh(h);
      assert.deepEqual(await untilGasEvents(h.s, 'ETH', 2), [`GasPriceUpdated ${wei(75n)}`, `GasPriceUpdated ${wei(90n)}`]);
      const changedAt = h.clock.now();
      assert.deepEqual(await gasStationOf(h.s, 'ETH'), meanAverageFast('90', changedAt));

      await refresh(h); // the same price: nothing recorded (the next event proves it)
      h.station.answer(GasStationMode.Error);
      await refresh(h);
      h.station.answer(GasStationMode.Garbage);
      await refresh(h); // still failing: nothing more
      const origin = new URL(h.station.url).origin;
      assert.deepEqual((await untilGasEvents(h.s, 'ETH', 3)).slice(2), [`GasPriceStale Failed to get the gas price from the gas station ${origin}: HTTP 500 Internal Server Error`]);
      assert.deepEqual(await gasStationOf(h.s, 'ETH'), meanAverageFast('90', changedAt, true));
      // a stale station never disables the coin
      assert.deepEqual(await enabledTickers(h.s), ['ETH', 'USDT-ERC20']);
      assert.equal((await h.s.legacy('my_balance', { coin: 'ETH' })).body.balance, '1.2345');

      h.station.answer(GasStationMode.Json, { fast: 1200, average: 600 }); // back, at the same price
      await refresh(h);
      assert.deepEqual((await untilGasEvents(h.s, 'ETH', 4)).slice(3), [`GasPriceUpdated ${wei(90n)}`]);
      assert.deepEqual(await gasStationOf(h.s, 'ETH'), meanAverageFast('90', h.clock.now()));
      assert.equal((await gasEvents(h.s, 'ETH')).length, 4);

      // passive (its token stays, and pays gas in ETH): still refreshed, the price shown for both
      assert.equal((await h.s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      assert.equal(h.s.service.registry.view('ETH').state, 'passive');
      assert.equal(h.s.service.registry.gasPriceRefreshes, 1);
      h.station.answer(GasStationMode.Json, { fast: 40, average: 20 }); // 3 gwei
      await refresh(h);
      assert.deepEqual((await untilGasEvents(h.s, 'ETH', 5)).slice(4), [`GasPriceUpdated ${wei(3n)}`]);
      const passiveAt = h.clock.now();
      assert.deepEqual(await gasStationOf(h.s, 'USDT-ERC20'), meanAverageFast('3', passiveAt));
      assert.deepEqual(await gasStationOf(h.s, 'ETH'), meanAverageFast('3', passiveAt));

      // the last token disabled: the passive platform goes, and its refresh with it
      assert.equal((await h.s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      assert.equal(h.s.service.registry.view('ETH').state, 'inactive');
      assert.equal(h.s.service.registry.gasPriceRefreshes, 0);
      assert.deepEqual(h.clock.dueIn(), []);
      const hits = h.station.hits();
      h.clock.advance(10 * INTERVAL);
      assert.equal(h.station.hits(), hits);
      assert.equal(await gasStationOf(h.s, 'USDT-ERC20'), 'NoSuchCoin');
    } finally {
      await h.stop();
    }
  });

  test('a silent station: the read ends at its own timeout and the price goes stale', async () => {
    const h = await harness();
    try {
      assert.equal((await h.s.v2('enable_eth_with_tokens', enableEthParams(h.s, [], { gas_station_url: h.station.url }))).status, 200);
      h.station.answer(GasStationMode.Silent);
      h.clock.advance(INTERVAL);
      await eventually(() => h.station.hits() === 2, 'the station to be asked');
      assert.deepEqual(refreshTimers(h), [STATION_TIMEOUT], 'only the read\'s own timeout runs');
      h.clock.advance(STATION_TIMEOUT - 1);
      assert.equal((await gasEvents(h.s, 'ETH')).length, 1);
      h.clock.advance(1);
      const events = await untilGasEvents(h.s, 'ETH', 2);
      assert.match(events[1]!, /^GasPriceStale Failed to get the gas price from the gas station http:\/\/127\.0\.0\.1:\d+: no answer within 10000 ms$/);
      await eventually(() => refreshTimers(h).join() === String(INTERVAL), 'the next turn');
    } finally {
      await h.stop();
    }
  });

  test('legacy enable: refreshed the same way; disable_coin stops it', async () => {
    const h = await harness();
    try {
      const body = { coin: 'ETH', urls: [devnet.url], swap_contract_address: SWAP_CONTRACT, gas_station_url: h.station.url };
      assert.equal((await h.s.legacy('enable', body)).body.result, 'success');
      h.station.answer(GasStationMode.Json, { fast: 30, average: 10 }); // 2 gwei
      await refresh(h);
      assert.deepEqual(await untilGasEvents(h.s, 'ETH', 2), [`GasPriceUpdated ${wei(75n)}`, `GasPriceUpdated ${wei(2n)}`]);
      assert.equal((await h.s.legacy('disable_coin', { coin: 'ETH' })).body.result.coin, 'ETH');
      assert.equal(h.s.service.registry.gasPriceRefreshes, 0);
      assert.deepEqual(h.clock.dueIn(), []);
      const hits = h.station.hits();
      h.clock.advance(10 * INTERVAL);
      assert.equal(h.station.hits(), hits);
      assert.equal(await gasStationOf(h.s, 'ETH'), 'NoSuchCoin');
      assert.deepEqual((await coinEventTypes(h.s, 'ETH')).slice(-1), ['CoinDisabled']);
    } finally {
      await h.stop();
    }
  });

  test('the service stopping stops every refresh: no timer left, a read in flight aborted', async () => {
    const h = await harness();
    try {
      assert.equal((await h.s.v2('enable_eth_with_tokens', enableEthParams(h.s, [], { gas_station_url: h.station.url }))).status, 200);
      h.station.answer(GasStationMode.Silent);
      h.clock.advance(INTERVAL);
      await eventually(() => h.station.hits() === 2, 'a read in flight');
      await h.s.service.stop();
      assert.equal(h.s.service.registry.gasPriceRefreshes, 0);
      assert.deepEqual(h.clock.dueIn(), []);
    } finally {
      await h.station.stop();
    }
  });
});
