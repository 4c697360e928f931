import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise } from 'xstate';
import { gasPriceRefreshMachine, type GasPriceFailure, type GasPriceRead } from './gasPriceRefresh.machine.ts';
import { xstateClock } from '../actors/xstateClock.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import type { DomainEvent } from '../spec/events.ts';

const INTERVAL = 60_000;
const START = Date.UTC(2025, 0, 1);

/** A refresh whose station reads are promises the test settles by hand. */
function harness(initialWei = 75n) {
  const clock = new ManualClock(START);
  const reads: { signal: AbortSignal; resolve(read: GasPriceRead): void; reject(failure: GasPriceFailure): void }[] = [];
  const machine = gasPriceRefreshMachine.provide({
    actors: {
      readGasPrice: fromPromise<GasPriceRead, { ticker: string }>(
        ({ signal }) => new Promise((resolve, reject) => reads.push({ signal, resolve, reject })),
      ),
    },
  });
  const actor = createActor(machine, { input: { ticker: 'ETH', intervalMs: INTERVAL, initial: { wei: initialWei, at: START - 5 } }, clock: xstateClock(clock) });
  const events: DomainEvent[] = [];
  actor.on('*', (event) => events.push(event as DomainEvent));
  actor.start();
  /** Lets the interval pass and returns the read it started. */
  const tick = () => {
    clock.advance(INTERVAL);
    const read = reads.at(-1);
    assert.ok(read && reads.length > 0, 'no read started');
    return read;
  };
  /** Settles the read and lets the machine take its result. */
  const settle = async (outcome: { wei: bigint } | { fail: string }) => {
    const read = tick();
    if ('wei' in outcome) read.resolve({ wei: outcome.wei, at: clock.now() });
    else read.reject({ at: clock.now(), reason: outcome.fail });
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { clock, actor, events, reads, tick, settle };
}

const updated = (wei: bigint, at: number): DomainEvent => ({ type: 'GasPriceUpdated', data: { ticker: 'ETH', gasPriceWei: wei.toString(), updatedAt: new Date(at).toISOString() } });
const stale = (at: number, reason: string): DomainEvent => ({ type: 'GasPriceStale', data: { ticker: 'ETH', since: new Date(at).toISOString(), reason } });

describe('gasPriceRefresh machine', () => {
  test('Given a coin activated with a price, Then the price is recorded once, and no read starts before the interval', () => {
    const h = harness(75n);
    assert.deepEqual(h.events, [updated(75n, START - 5)]);
    h.clock.advance(INTERVAL - 1);
    assert.equal(h.reads.length, 0);
    h.actor.stop();
  });

  test('When a read gets another price, Then one GasPriceUpdated; When it gets the same price, Then nothing', async () => {
    const h = harness(75n);
    await h.settle({ wei: 80n });
    assert.deepEqual(h.events.slice(1), [updated(80n, START + INTERVAL)]);
    await h.settle({ wei: 80n });
    await h.settle({ wei: 80n });
    assert.equal(h.events.length, 2);
    assert.equal(h.reads.length, 3);
    h.actor.stop();
  });

  test('When reads fail, Then one GasPriceStale from the first failure, the price is kept; When a read succeeds again, Then fresh at that price', async () => {
    const h = harness(75n);
    await h.settle({ fail: 'HTTP 500' });
    await h.settle({ fail: 'timeout' });
    await h.settle({ fail: 'HTTP 502' });
    assert.deepEqual(h.events.slice(1), [stale(START + INTERVAL, 'HTTP 500')]);
    assert.equal(h.actor.getSnapshot().context.priceWei, 75n);
    // recovery at the same price still ends the stale period
    await h.settle({ wei: 75n });
    assert.deepEqual(h.events.slice(2), [updated(75n, START + 4 * INTERVAL)]);
    assert.equal(h.actor.getSnapshot().context.stale, false);
    // and a later failure starts a new stale period
    await h.settle({ fail: 'again' });
    assert.deepEqual(h.events.slice(3), [stale(START + 5 * INTERVAL, 'again')]);
    h.actor.stop();
  });

  test('Given the next read is waiting, When the actor stops, Then no timer is left', () => {
    const h = harness();
    assert.equal(h.clock.pendingTimers, 1);
    h.actor.stop();
    assert.equal(h.clock.pendingTimers, 0);
  });

  test('Given a read in flight, When the actor stops, Then the read is aborted, no timer is left and its late answer records nothing', async () => {
    const h = harness();
    const read = h.tick();
    assert.equal(h.clock.pendingTimers, 0, 'the next read waits for this one');
    h.actor.stop();
    assert.equal(read.signal.aborted, true);
    read.resolve({ wei: 99n, at: h.clock.now() });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(h.events.length, 1);
    assert.equal(h.clock.pendingTimers, 0);
  });
});
