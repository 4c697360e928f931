import { assign, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import { formatAmount } from '../spec/amount.ts';
import type { DomainEvent } from '../spec/events.ts';
import type { Balance } from './activation.types.ts';

/**
 * The balance watcher of one node (issue 24): every balance of every active coin that reads
 * through the node, read again once per new block, all in one round trip. It records what
 * changed, past tense: one `BalanceChanged` per balance that differs from the last one known.
 *
 * New blocks come from polling the node's block number every `pollMs` (on the actor system's
 * clock), or from `HEAD` events when the node pushes its new heads (the invoked `followHeads`,
 * which the watchers provide; it does nothing for a node without a push), and `CHANGED` when the
 * node says a watched balance changed within a block (Electrum script-hash statuses): while the push is live
 * (`HEADS_LIVE` until `HEADS_LOST`) the block number is not polled. A read that fails
 * leaves the block where it was, so the next poll or head reads again: a change is seen late,
 * never lost. Coins join (`WATCH`) and leave (`UNWATCH`) while it runs; whoever runs it stops it
 * when the node has no coin left, which cancels the timer, the subscription and any read.
 */

/** One balance to watch: `ticker` (a platform or one of its tokens) at `address`. */
export interface WatchedBalance {
  readonly ticker: string;
  /** The platform whose stream records its changes. */
  readonly platform: string;
  readonly address: string;
  /** The token's contract; absent for the platform's own coin. */
  readonly contract?: string;
  readonly decimals: number;
  /** The last balance known (the activation's); `undefined` when none was read. */
  readonly balance?: Balance;
}

/** What one read of the watched balances found: the block it read at, and each balance by {@link watchKey}. */
export interface WatchRead {
  readonly block: number;
  readonly balances: ReadonlyMap<string, Balance>;
}

/** The identity of a watched balance within its node. */
export const watchKey = (b: { readonly ticker: string; readonly address: string }): string => `${b.ticker} ${b.address.toLowerCase()}`;

export interface BalanceWatchInput {
  /** Time between two polls of the block number. */
  readonly pollMs: number;
  /** The balances of the first coin, and the block their values were read at. */
  readonly balances: readonly WatchedBalance[];
  readonly block: number;
}

interface Context {
  readonly pollMs: number;
  /** The node pushes its heads now (`HEADS_LIVE`): no block-number poll until `HEADS_LOST`. */
  readonly headsLive: boolean;
  readonly block: number;
  /** A head announced while a read ran: read again after it. */
  readonly pendingBlock: number;
  /** A `CHANGED` came while a read ran: read again after it. */
  readonly pendingChange: boolean;
  readonly watched: ReadonlyMap<string, WatchedBalance>;
}

export type BalanceWatchEvent =
  /**
   * A coin's balances join the watch, replacing the platform's earlier ones; one already watched
   * keeps the value last read.
   */
  | { readonly type: 'WATCH'; readonly platform: string; readonly balances: readonly WatchedBalance[] }
  /** Every balance of `platform` leaves the watch. */
  | { readonly type: 'UNWATCH'; readonly platform: string }
  /** The node announced block `block`. */
  | { readonly type: 'HEAD'; readonly block: number }
  /**
   * The node says a watched balance changed without a new block (an Electrum script hash's
   * status: a mempool transaction): read again whatever the block.
   */
  | { readonly type: 'CHANGED' }
  /** The node's head subscription is live: polling pauses. */
  | { readonly type: 'HEADS_LIVE' }
  /** The subscription is lost (socket closed, refused): polling resumes. */
  | { readonly type: 'HEADS_LOST' };

const byKey = (balances: readonly WatchedBalance[]) => new Map(balances.map((b) => [watchKey(b), b]));
const sameBalance = (a: Balance, b: Balance) => a.spendable === b.spendable && a.unspendable === b.unspendable;
const formatted = (b: Balance, decimals: number) => ({ spendable: formatAmount(b.spendable, decimals), unspendable: formatAmount(b.unspendable, decimals) });

export const balanceWatchMachine = setup({
  types: {
    input: {} as BalanceWatchInput,
    context: {} as Context,
    events: {} as BalanceWatchEvent,
    emitted: {} as DomainEvent,
  },
  actors: {
    /** The node's block number. */
    readBlock: fromPromise<number, void>(async () => {
      throw new Error('readBlock is provided by the balance watchers');
    }),
    /** Every watched balance, and the block, in one round trip. */
    readWatched: fromPromise<WatchRead, { readonly balances: readonly WatchedBalance[] }>(async () => {
      throw new Error('readWatched is provided by the balance watchers');
    }),
    /** Sends `HEAD` for each block the node pushes; does nothing for a node without a push. */
    followHeads: fromCallback<BalanceWatchEvent>(() => undefined),
  },
  delays: {
    pollInterval: ({ context }) => context.pollMs,
  },
  guards: {
    newBlock: ({ context }, block: number) => block > context.block,
  },
  actions: {
    recordRead: enqueueActions(({ context, enqueue }, read: WatchRead) => {
      const watched = new Map(context.watched);
      for (const [key, was] of context.watched) {
        const now = read.balances.get(key);
        if (now === undefined) continue; // joined after the read started
        watched.set(key, { ...was, balance: now });
        // Without a balance known before (an activation without balances) the first read sets it silently.
        if (was.balance === undefined || sameBalance(was.balance, now)) continue;
        const data = {
          ticker: was.ticker,
          platform: was.platform,
          address: was.address,
          old: formatted(was.balance, was.decimals),
          new: formatted(now, was.decimals),
          block: read.block,
        };
        enqueue.emit({ type: 'BalanceChanged', data });
      }
      enqueue.assign({ watched, block: Math.max(context.block, read.block) });
    }),
  },
}).createMachine({
  id: 'balanceWatch',
  context: ({ input }) => ({ pollMs: input.pollMs, headsLive: false, block: input.block, pendingBlock: input.block, pendingChange: false, watched: byKey(input.balances) }),
  invoke: { src: 'followHeads' },
  on: {
    WATCH: {
      actions: assign({
        watched: ({ context, event }) => {
          const others = [...context.watched.values()].filter((b) => b.platform !== event.platform);
          // A balance already watched keeps the value last read (the coin's changed: a token came or went).
          const joined = event.balances.map((b) => {
            const known = context.watched.get(watchKey(b))?.balance;
            return known === undefined ? b : { ...b, balance: known };
          });
          return byKey([...others, ...joined]);
        },
      }),
    },
    HEADS_LIVE: { actions: assign({ headsLive: true }) },
    HEADS_LOST: { actions: assign({ headsLive: false }) },
    UNWATCH: {
      actions: assign({ watched: ({ context, event }) => byKey([...context.watched.values()].filter((b) => b.platform !== event.platform)) }),
    },
  },
  initial: 'waiting',
  states: {
    waiting: {
      // While heads are pushed the timer only re-arms (no node call), so polling resumes within one
      // interval of losing them.
      after: { pollInterval: [{ guard: ({ context }) => context.headsLive, target: 'waiting', reenter: true }, { target: 'polling' }] },
      on: { HEAD: { guard: { type: 'newBlock', params: ({ event }) => event.block }, target: 'reading' }, CHANGED: 'reading' },
    },
    polling: {
      invoke: {
        src: 'readBlock',
        onDone: [{ guard: { type: 'newBlock', params: ({ event }) => event.output }, target: 'reading' }, { target: 'waiting' }],
        onError: 'waiting',
      },
      on: { HEAD: { guard: { type: 'newBlock', params: ({ event }) => event.block }, target: 'reading' }, CHANGED: 'reading' },
    },
    reading: {
      entry: assign({ pendingChange: false }),
      invoke: {
        src: 'readWatched',
        input: ({ context }) => ({ balances: [...context.watched.values()] }),
        onDone: { target: 'afterRead', actions: { type: 'recordRead', params: ({ event }) => event.output } },
        onError: 'waiting',
      },
      on: {
        HEAD: { actions: assign({ pendingBlock: ({ context, event }) => Math.max(context.pendingBlock, event.block) }) },
        CHANGED: { actions: assign({ pendingChange: true }) },
      },
    },
    afterRead: {
      always: [{ guard: ({ context }) => context.pendingChange || context.pendingBlock > context.block, target: 'reading' }, { target: 'waiting' }],
    },
  },
});

