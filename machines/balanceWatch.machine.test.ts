import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromCallback, fromPromise } from 'xstate';
import { balanceWatchMachine, watchKey, type BalanceWatchEvent, type WatchedBalance, type WatchRead } from './balanceWatch.machine.ts';
import { xstateClock } from '../actors/xstateClock.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import type { DomainEvent } from '../spec/events.ts';
import type { Balance } from './activation.types.ts';

const POLL = 10_000;
const ADDRESS = '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d';
const bal = (spendable: bigint): Balance => ({ spendable, unspendable: 0n });
const eth: WatchedBalance = { ticker: 'ETH', platform: 'ETH', address: ADDRESS, decimals: 18, balance: bal(10n ** 18n) };
const usdt: WatchedBalance = { ticker: 'USDT-ERC20', platform: 'ETH', address: ADDRESS, contract: `0x${'1'.padStart(40, '0')}`, decimals: 6, balance: bal(5_000_000n) };

interface Pending<T> {
  readonly signal: AbortSignal;
  readonly input: unknown;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A watcher whose node calls are promises the test settles by hand, on a manual clock. */
function harness(balances: readonly WatchedBalance[] = [eth, usdt], block = 100) {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const blockReads: Pending<number>[] = [];
  const reads: Pending<WatchRead>[] = [];
  let heads: ((event: BalanceWatchEvent) => void) | undefined;
  let headsStopped = false;
  const machine = balanceWatchMachine.provide({
    actors: {
      readBlock: fromPromise<number, void>(({ signal, input }) => new Promise((resolve, reject) => blockReads.push({ signal, input, resolve, reject }))),
      readWatched: fromPromise<WatchRead, { balances: readonly WatchedBalance[] }>(
        ({ signal, input }) => new Promise((resolve, reject) => reads.push({ signal, input, resolve, reject })),
      ),
      followHeads: fromCallback<BalanceWatchEvent>(({ sendBack }) => {
        heads = sendBack;
        return () => {
          headsStopped = true;
        };
      }),
    },
  });
  const actor = createActor(machine, { input: { pollMs: POLL, balances, block }, clock: xstateClock(clock) });
  const events: DomainEvent[] = [];
  actor.on('*', (event) => events.push(event as DomainEvent));
  actor.start();
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  /** Lets one poll interval pass and answers the block number with `height`. */
  const poll = async (height: number) => {
    clock.advance(POLL);
    const read = blockReads.at(-1);
    assert.ok(read, 'no block poll started');
    read.resolve(height);
    await flush();
  };
  /** Answers the read in flight: every watched balance at `height`, `values` by ticker (others unchanged). */
  const answer = async (height: number, values: Record<string, bigint>) => {
    const read = reads.at(-1);
    assert.ok(read, 'no read started');
    const asked = (read.input as { balances: readonly WatchedBalance[] }).balances;
    read.resolve({ block: height, balances: new Map(asked.map((b) => [watchKey(b), values[b.ticker] === undefined ? b.balance! : bal(values[b.ticker]!)])) });
    await flush();
  };
  return { clock, actor, events, blockReads, reads, poll, answer, flush, heads: () => heads!, headsStopped: () => headsStopped };
}

const changed = (b: WatchedBalance, old: string, now: string, block: number): DomainEvent => ({
  type: 'BalanceChanged',
  data: { ticker: b.ticker, platform: b.platform, address: b.address, old: { spendable: old, unspendable: '0' }, new: { spendable: now, unspendable: '0' }, block },
});

describe('balanceWatch machine', () => {
  test('Given a watched node, When the poll interval has not passed, Then no node call is made', () => {
    const h = harness();
    h.clock.advance(POLL - 1);
    assert.equal(h.blockReads.length + h.reads.length, 0);
    h.actor.stop();
  });

  test('Given a poll that finds the same block, Then no balance read and no event', async () => {
    const h = harness();
    await h.poll(100);
    await h.poll(100);
    assert.equal(h.blockReads.length, 2);
    assert.equal(h.reads.length, 0);
    assert.deepEqual(h.events, []);
    h.actor.stop();
  });

  test('When a new block comes, Then one read of every balance; a changed one is one BalanceChanged, an unchanged one nothing', async () => {
    const h = harness();
    await h.poll(101);
    assert.equal(h.reads.length, 1);
    assert.deepEqual((h.reads[0]!.input as { balances: WatchedBalance[] }).balances.map((b) => b.ticker), ['ETH', 'USDT-ERC20']);
    await h.answer(101, { 'USDT-ERC20': 7_250_000n });
    assert.deepEqual(h.events, [changed(usdt, '5', '7.25', 101)]);
    // a later block that changes nothing writes nothing
    await h.poll(102);
    await h.answer(102, { 'USDT-ERC20': 7_250_000n });
    assert.equal(h.events.length, 1);
    h.actor.stop();
  });

  test('When a read fails, Then nothing is written and the next poll reads again (the change is not lost)', async () => {
    const h = harness();
    await h.poll(101);
    h.reads[0]!.reject(new Error('every node failed'));
    await h.flush();
    assert.deepEqual(h.events, []);
    await h.poll(101); // same height as the failed read: still read, the block was never read
    assert.equal(h.reads.length, 2);
    await h.answer(101, { ETH: 2n * 10n ** 18n });
    assert.deepEqual(h.events, [changed(eth, '1', '2', 101)]);
    h.actor.stop();
  });

  test('Given heads pushed by the node, When a head comes, Then a read at once; a head during a read reads again after it', async () => {
    const h = harness();
    h.heads()({ type: 'HEAD', block: 101 });
    assert.equal(h.reads.length, 1);
    h.heads()({ type: 'HEAD', block: 102 });
    await h.answer(101, {});
    assert.equal(h.reads.length, 2, 'the head seen during the read is read');
    await h.answer(102, { ETH: 0n });
    assert.deepEqual(h.events, [changed(eth, '1', '0', 102)]);
    h.heads()({ type: 'HEAD', block: 102 });
    assert.equal(h.reads.length, 2, 'a head already read is not read again');
    h.actor.stop();
  });

  test('Given a node that says a balance changed within the block (CHANGED), Then a read at once; one during a read reads again after it', async () => {
    const h = harness();
    h.heads()({ type: 'CHANGED' });
    assert.equal(h.reads.length, 1, 'read without a new block');
    h.heads()({ type: 'CHANGED' });
    await h.answer(100, { ETH: 3n * 10n ** 18n });
    assert.equal(h.reads.length, 2, 'the change seen during the read is read');
    await h.answer(100, { ETH: 3n * 10n ** 18n });
    assert.deepEqual(h.events, [changed(eth, '1', '3', 100)]);
    assert.equal(h.reads.length, 2, 'no read without a change');
    h.actor.stop();
  });

  test('When a coin joins and another leaves, Then the next read holds exactly the watched balances', async () => {
    const h = harness([eth]);
    const bnbLike: WatchedBalance = { ...eth, ticker: 'ETH-2', platform: 'ETH-2' };
    h.actor.send({ type: 'WATCH', platform: 'ETH-2', balances: [bnbLike] });
    await h.poll(101);
    assert.deepEqual((h.reads[0]!.input as { balances: WatchedBalance[] }).balances.map((b) => b.ticker), ['ETH', 'ETH-2']);
    await h.answer(101, { ETH: 7n });
    // the platform's coin changed (a token came): what was read is kept, not the activation's value
    h.actor.send({ type: 'WATCH', platform: 'ETH', balances: [eth, usdt] });
    await h.poll(102);
    await h.answer(102, { ETH: 7n });
    assert.deepEqual(h.events.map((e) => e.type === 'BalanceChanged' && e.data.block), [101], 'ETH changed at 101; nothing at 102');
    h.actor.send({ type: 'UNWATCH', platform: 'ETH' });
    await h.poll(103);
    assert.deepEqual((h.reads[2]!.input as { balances: WatchedBalance[] }).balances.map((b) => b.ticker), ['ETH-2']);
    h.actor.stop();
  });

  test('Given a balance the activation did not read, Then the first read sets it silently and later changes are written', async () => {
    const h = harness([{ ...eth, balance: undefined }]);
    await h.poll(101);
    const read = h.reads[0]!;
    read.resolve({ block: 101, balances: new Map([[watchKey(eth), bal(3n * 10n ** 18n)]]) });
    await h.flush();
    assert.deepEqual(h.events, []);
    await h.poll(102);
    await h.answer(102, { ETH: 4n * 10n ** 18n });
    assert.deepEqual(h.events, [changed(eth, '3', '4', 102)]);
    h.actor.stop();
  });

  test('When the watcher stops, Then the read in flight is aborted, the head subscription ends and no timer is left', async () => {
    const h = harness();
    await h.poll(101);
    const read = h.reads[0]!;
    h.actor.stop();
    assert.equal(read.signal.aborted, true);
    assert.equal(h.headsStopped(), true);
    assert.equal(h.clock.pendingTimers, 0);
  });

  test('Given a live head subscription, When intervals pass, Then no block poll; When it is lost, Then polling resumes within one interval', async () => {
    const h = harness();
    h.heads()({ type: 'HEADS_LIVE' });
    h.clock.advance(POLL);
    h.clock.advance(POLL);
    assert.equal(h.blockReads.length, 0);
    assert.equal(h.clock.pendingTimers, 1, 'only the re-armed interval');
    h.heads()({ type: 'HEADS_LOST' });
    await h.poll(100);
    assert.equal(h.blockReads.length, 1);
    h.actor.stop();
  });
});
