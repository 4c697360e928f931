import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BalanceWatchers } from './balanceWatchers.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import type { ActivatedCoin } from '../machines/activation.types.ts';
import { watchKey, type WatchedBalance } from '../machines/balanceWatch.machine.ts';
import type { CoinWatch, WatchedNode } from './ports/balanceWatch.ts';
import type { DomainEvent } from '../spec/events.ts';

const POLL = 10_000;
const ADDRESS = '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d';

/** A chain the fake nodes read: its height and every balance by {@link watchKey}. */
class FakeChain {
  height = 100;
  readonly balances = new Map<string, bigint>();
  blockCalls = 0;
  reads: (readonly string[])[] = [];
  closed = 0;
  /** While set, every poll waits for it (a node slow to answer). */
  gate: Promise<void> | undefined;
  /** Set: the node pushes its heads (`followHeads`), and this is its listener. */
  heads: Parameters<NonNullable<WatchedNode['followHeads']>>[0] | undefined;
  pushes = false;

  node(key: string): WatchedNode {
    return {
      key,
      pollMs: POLL,
      readBlock: async () => {
        this.blockCalls++;
        await this.gate;
        return this.height;
      },
      read: async (balances) => {
        this.reads.push(balances.map((b) => b.ticker));
        return { block: this.height, balances: new Map(balances.map((b) => [watchKey(b), { spendable: this.balances.get(watchKey(b)) ?? 0n, unspendable: 0n }])) };
      },
      close: () => void this.closed++,
      ...(this.pushes
        ? {
            followHeads: (listener: Parameters<NonNullable<WatchedNode['followHeads']>>[0]) => {
              this.heads = listener;
              listener.live();
              return () => (this.heads = undefined);
            },
          }
        : {}),
    };
  }
}

const coin = (ticker: string, node: string): ActivatedCoin =>
  ({ ticker, family: 'evm', address: ADDRESS, pubkey: '04', derivationMethod: 'Iguana', currentBlock: 100, decimals: 18, tokens: [], connection: node }) as ActivatedCoin;

function harness() {
  const clock = new ManualClock(Date.UTC(2025, 0, 1));
  const chain = new FakeChain();
  const events: { platform: string; event: DomainEvent }[] = [];
  let durable: () => void = () => undefined;
  let pendingDurable = Promise.resolve();
  const watchers = new BalanceWatchers({
    clock,
    watchOf: (c): CoinWatch => {
      const balances: WatchedBalance[] = [c.ticker, ...c.tokens.map((t) => t.ticker)].map((ticker) => ({
        ticker,
        platform: c.ticker,
        address: c.address,
        decimals: 18,
        balance: { spendable: 1n, unspendable: 0n },
      }));
      for (const b of balances) chain.balances.set(watchKey(b), chain.balances.get(watchKey(b)) ?? 1n);
      return { node: chain.node(c.connection as string), balances, block: c.currentBlock };
    },
    append: (platform, event) => events.push({ platform, event }),
    afterDurable: () => pendingDurable,
  });
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  /** Holds every later join until `release` (the coin's events not yet durable). */
  const holdDurable = () => {
    pendingDurable = new Promise((resolve) => (durable = resolve));
    return () => durable();
  };
  return { clock, chain, events, watchers, flush, holdDurable };
}

describe('balance watchers', () => {
  test('Given a coin whose activation is not yet durable, Then it is not watched; When it is, Then it joins', async () => {
    const h = harness();
    const release = h.holdDurable();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    await h.flush();
    assert.equal(h.watchers.size, 0);
    release();
    await h.flush();
    assert.equal(h.watchers.size, 1);
  });

  test('Given two coins on one node and one on another, When a block comes, Then one read per node holding all its coins', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    h.watchers.follow('DAI-ERC20', 1, coin('DAI-ERC20', 'node-a'));
    h.watchers.follow('ETH-B', 1, coin('ETH-B', 'node-b'));
    await h.flush();
    assert.equal(h.watchers.size, 2);
    h.chain.height = 101;
    h.chain.balances.set(watchKey({ ticker: 'DAI-ERC20', address: ADDRESS }), 2n);
    h.clock.advance(POLL);
    await h.flush();
    assert.deepEqual(h.chain.reads.map((r) => r.join(',')).sort(), ['ETH,DAI-ERC20', 'ETH-B']);
    assert.deepEqual(h.events.map((e) => `${e.platform} ${e.event.type}`), ['DAI-ERC20 BalanceChanged']);
    assert.deepEqual(h.watchers.watched('DAI-ERC20', 'DAI-ERC20', ADDRESS), { balance: { spendable: 2n, unspendable: 0n }, fresh: true });
    h.clock.advance(POLL + 1);
    assert.equal(h.watchers.watched('DAI-ERC20', 'DAI-ERC20', ADDRESS)?.fresh, false, 'older than one poll interval');
    h.watchers.stopAll();
  });

  test('When coins leave (disabled, passive), Then the node watcher stops with its last coin; When the service stops, Then no timer is left', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    h.watchers.follow('DAI-ERC20', 1, coin('DAI-ERC20', 'node-a'));
    h.watchers.follow('ETH-B', 1, coin('ETH-B', 'node-b'));
    await h.flush();
    h.watchers.follow('DAI-ERC20', 1, null);
    assert.equal(h.watchers.size, 2);
    h.watchers.follow('ETH', 1, null);
    assert.equal(h.watchers.size, 1);
    assert.equal(h.clock.pendingTimers, 1, "only node-b's poll");
    h.watchers.stopAll();
    assert.equal(h.watchers.size, 0);
    assert.equal(h.clock.pendingTimers, 0);
    // every node handed out was closed: the two running ones, and the one of the coin that joined a running watcher
    assert.equal(h.chain.closed, 3);
    h.clock.advance(10 * POLL);
    await h.flush();
    assert.equal(h.chain.blockCalls, 0);
  });

  test('When a coin is re-activated (a new attempt), Then it watches the new activation and a disabled coin that was still joining never joins', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    await h.flush();
    h.watchers.follow('ETH', 2, coin('ETH', 'node-a'));
    await h.flush();
    assert.equal(h.watchers.size, 1);
    const release = h.holdDurable();
    h.watchers.follow('DAI-ERC20', 1, coin('DAI-ERC20', 'node-b'));
    h.watchers.follow('DAI-ERC20', 1, null);
    release();
    await h.flush();
    assert.equal(h.watchers.size, 1);
    h.watchers.stopAll();
  });

  test('Given a coin that changes before it joins (a token added), Then it joins with the coin as it is then', async () => {
    const h = harness();
    const release = h.holdDurable();
    const first = coin('ETH', 'node-a');
    h.watchers.follow('ETH', 1, first);
    const withToken = { ...first, tokens: [{ ticker: 'USDT-ERC20', contractAddress: '0x1', decimals: 6 }] } as ActivatedCoin;
    h.watchers.follow('ETH', 1, withToken);
    release();
    await h.flush();
    h.chain.height = 101;
    h.clock.advance(POLL);
    await h.flush();
    assert.deepEqual(h.chain.reads, [['ETH', 'USDT-ERC20']]);
    h.watchers.stopAll();
  });

  test('When the coin whose connection the watcher reads through leaves, Then the watcher goes on through the next coin, keeping the values read', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    h.watchers.follow('DAI-ERC20', 1, coin('DAI-ERC20', 'node-a'));
    await h.flush();
    h.chain.height = 101;
    h.chain.balances.set(watchKey({ ticker: 'DAI-ERC20', address: ADDRESS }), 5n);
    h.clock.advance(POLL);
    await h.flush();
    assert.equal(h.events.length, 1);
    h.watchers.follow('ETH', 1, null);
    assert.equal(h.watchers.size, 1);
    assert.equal(h.clock.pendingTimers, 1, 'one watcher, one timer');
    h.chain.height = 102;
    h.clock.advance(POLL);
    await h.flush();
    assert.deepEqual(h.chain.reads.at(-1), ['DAI-ERC20']);
    assert.equal(h.events.length, 1, 'the value read before the hand-over is kept: no second event');
    h.watchers.stopAll();
    assert.equal(h.clock.pendingTimers, 0);
  });

  test('Given a value gone stale while its poll is in flight, When a balance is asked, Then it waits for that poll and answers fresh, with no read of its own', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    await h.flush();
    h.clock.advance(POLL); // a poll finds no new block: the values are current
    await h.flush();
    assert.equal(h.watchers.watched('ETH', 'ETH', ADDRESS)?.fresh, true);
    const reads = h.chain.reads.length;
    let open!: () => void;
    h.chain.gate = new Promise((resolve) => (open = resolve));
    h.clock.advance(POLL); // the poll starts and hangs
    h.clock.advance(1);
    await h.flush();
    assert.equal(h.watchers.watched('ETH', 'ETH', ADDRESS)?.fresh, false);
    let answered = undefined as { fresh: boolean } | undefined;
    const asked = h.watchers.current('ETH', 'ETH', ADDRESS, new AbortController().signal).then((v) => (answered = v));
    await h.flush();
    assert.equal(answered, undefined, 'waits for the poll');
    open();
    assert.equal((await asked)?.fresh, true);
    assert.equal(h.chain.reads.length, reads, 'no read');
  });

  test('Given a stale value and nothing in flight, When a balance is asked, Then it answers at once, not fresh (the caller asks the node)', async () => {
    const h = harness();
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    await h.flush();
    h.chain.gate = new Promise(() => undefined); // polls never answer: nothing marks the value current
    h.clock.advance(POLL);
    await h.flush();
    h.chain.gate = undefined;
    // The hung poll is still in flight: wait at most one poll interval on the clock.
    const asked = h.watchers.current('ETH', 'ETH', ADDRESS, new AbortController().signal);
    await h.flush();
    h.clock.advance(POLL);
    assert.equal((await asked)?.fresh, false);
    h.watchers.stopAll();
    assert.equal(await h.watchers.current('ETH', 'ETH', ADDRESS, new AbortController().signal), undefined);
  });

  test('Given a node that pushes its heads, When no block comes for longer than a poll interval, Then the values stay current; When a head is pushed, Then not until it is read', async () => {
    const h = harness();
    h.chain.pushes = true;
    h.watchers.follow('ETH', 1, coin('ETH', 'node-a'));
    await h.flush();
    h.chain.height = 101;
    h.chain.heads!.head(101); // read at once
    await h.flush();
    h.clock.advance(10 * POLL);
    await h.flush();
    assert.equal(h.chain.blockCalls, 0, 'no poll while heads are pushed');
    assert.equal(h.watchers.watched('ETH', 'ETH', ADDRESS)?.fresh, true);
    h.chain.height = 102;
    h.chain.heads!.head(102);
    assert.equal(h.watchers.watched('ETH', 'ETH', ADDRESS)?.fresh, false, 'a pushed head not yet read');
    await h.flush();
    assert.equal(h.watchers.watched('ETH', 'ETH', ADDRESS)?.fresh, true, 'read');
    h.watchers.stopAll();
  });
});
