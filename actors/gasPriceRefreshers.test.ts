import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GasPriceRefreshers } from './gasPriceRefreshers.ts';
import type { GasPriceFeed } from './ports/chainFamily.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { fakeCoin } from '../devnet/testing/fixtures.ts';
import type { ActivatedCoin } from '../machines/activation.types.ts';
import type { DomainEvent } from '../spec/events.ts';

const INTERVAL = 1_000;

/** Refreshers over coins whose `connection` is the price their station answers (undefined: no station). */
function harness() {
  const clock = new ManualClock();
  const events: [string, DomainEvent][] = [];
  const reads: string[] = [];
  const feedOf = (coin: ActivatedCoin): GasPriceFeed | undefined => {
    const answer = coin.connection as { wei: bigint } | null;
    if (answer === null) return undefined;
    return {
      initial: { wei: answer.wei, at: clock.now() },
      read: async () => {
        reads.push(coin.ticker);
        return { wei: answer.wei + 1n, at: clock.now() };
      },
    };
  };
  const refreshers = new GasPriceRefreshers({ clock, intervalMs: INTERVAL, feedOf, append: (ticker, event) => events.push([ticker, event]) });
  const coin = (ticker: string, wei: bigint | null) => fakeCoin(ticker, [], { connection: wei === null ? null : { wei } });
  return { clock, events, reads, refreshers, coin };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('GasPriceRefreshers', () => {
  test('a coin with a station gets one refresh, kept across transitions of the same activation; one without gets none', async () => {
    const h = harness();
    const eth = h.coin('ETH', 5n);
    h.refreshers.follow('ETH', 1, eth);
    h.refreshers.follow('BTC', 1, h.coin('BTC', null));
    assert.equal(h.refreshers.size, 1);
    assert.deepEqual(h.events.map(([t, e]) => [t, e.type]), [['ETH', 'GasPriceUpdated']]);
    // a token disabled (a new coin object, the same activation): the refresh goes on, no new event
    h.refreshers.follow('ETH', 1, { ...eth, tokens: [] });
    assert.equal(h.events.length, 1);
    h.clock.advance(INTERVAL);
    await settled();
    assert.deepEqual(h.reads, ['ETH']);
    assert.equal(h.events.length, 2);
    h.refreshers.stopAll();
  });

  test('leaving active stops the refresh and leaves no timer; a new activation starts a new one', async () => {
    const h = harness();
    h.refreshers.follow('ETH', 1, h.coin('ETH', 5n));
    assert.equal(h.clock.pendingTimers, 1);
    h.refreshers.follow('ETH', 1, null);
    assert.equal(h.refreshers.size, 0);
    assert.equal(h.clock.pendingTimers, 0);
    h.clock.advance(10 * INTERVAL);
    assert.deepEqual(h.reads, []);
    h.refreshers.follow('ETH', 2, h.coin('ETH', 9n));
    const last = h.events.at(-1)![1];
    assert.deepEqual(last.type === 'GasPriceUpdated' && last.data.gasPriceWei, '9');
    h.refreshers.stopAll();
    assert.equal(h.clock.pendingTimers, 0);
  });

  test('a failing read is a stale event with when and why', async () => {
    const clock = new ManualClock();
    const events: DomainEvent[] = [];
    const feed: GasPriceFeed = { initial: { wei: 1n, at: clock.now() }, read: () => Promise.reject(new Error('station down')) };
    const refreshers = new GasPriceRefreshers({ clock, intervalMs: INTERVAL, feedOf: () => feed, append: (_t, e) => events.push(e) });
    refreshers.follow('ETH', 1, fakeCoin('ETH'));
    clock.advance(INTERVAL);
    await settled();
    assert.deepEqual(events.at(-1), { type: 'GasPriceStale', data: { ticker: 'ETH', since: new Date(clock.now()).toISOString(), reason: 'station down' } });
    refreshers.stopAll();
  });
});
