import { emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { DomainEvent } from '../spec/events.ts';

/**
 * The gas price of one enabled (active or passive) coin with a gas station (issue 13), from the price its activation
 * read: every `intervalMs` (on the actor system's clock) the station is read again (the invoked
 * `readGasPrice`, provided by `actors/`, which bounds each read by its own timeout). It records
 * what changes, past tense:
 *
 * - `GasPriceUpdated` at start (the activation's price), then when a read gets another price, or
 *   the first good read after failures (which ends the stale period, even at the same price). The
 *   same price while fresh writes nothing.
 * - `GasPriceStale` at the first failed read of a stale period; later failures write nothing. The
 *   last price is kept, and the coin is never disabled for it.
 *
 * It runs as long as its coin is active or passive: stopping the actor cancels the timer and aborts a read.
 */

/** A price the station gave: exact wei, and when it answered (ms since the epoch, on the injected clock). */
export interface GasPriceRead {
  readonly wei: bigint;
  readonly at: number;
}

export interface GasPriceRefreshInput {
  readonly ticker: string;
  readonly intervalMs: number;
  /** The price the activation read. */
  readonly initial: GasPriceRead;
}

export interface GasPriceRefreshContext extends GasPriceRefreshInput {
  readonly priceWei: bigint;
  readonly stale: boolean;
}

/** When a failed read happened and why (naming the station by origin only). */
export interface GasPriceFailure {
  readonly at: number;
  readonly reason: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export const gasPriceRefreshMachine = setup({
  types: {
    input: {} as GasPriceRefreshInput,
    context: {} as GasPriceRefreshContext,
    emitted: {} as DomainEvent,
  },
  actors: {
    /** Reads the station once; rejects with a {@link GasPriceFailure}. */
    readGasPrice: fromPromise<GasPriceRead, { readonly ticker: string }>(async () => {
      throw new Error('readGasPrice is provided by the gas price refreshers');
    }),
  },
  delays: {
    refreshInterval: ({ context }) => context.intervalMs,
  },
  actions: {
    recordPrice: enqueueActions(({ context, enqueue }, read: GasPriceRead) => {
      // Fresh and unchanged: nothing happened worth a record.
      if (!context.stale && read.wei === context.priceWei) return;
      enqueue.assign({ priceWei: read.wei, stale: false });
      enqueue.emit({ type: 'GasPriceUpdated', data: { ticker: context.ticker, gasPriceWei: read.wei.toString(), updatedAt: iso(read.at) } });
    }),
    recordFailure: enqueueActions(({ context, enqueue }, failure: GasPriceFailure) => {
      if (context.stale) return; // once per stale period
      enqueue.assign({ stale: true });
      enqueue.emit({ type: 'GasPriceStale', data: { ticker: context.ticker, since: iso(failure.at), reason: failure.reason } });
    }),
  },
}).createMachine({
  id: 'gasPriceRefresh',
  context: ({ input }) => ({ ...input, priceWei: input.initial.wei, stale: false }),
  // The activation's price is the coin's first.
  entry: emit(({ context }) => ({
    type: 'GasPriceUpdated' as const,
    data: { ticker: context.ticker, gasPriceWei: context.initial.wei.toString(), updatedAt: iso(context.initial.at) },
  })),
  initial: 'waiting',
  states: {
    waiting: {
      after: { refreshInterval: 'reading' },
    },
    reading: {
      invoke: {
        src: 'readGasPrice',
        input: ({ context }) => ({ ticker: context.ticker }),
        onDone: { target: 'waiting', actions: { type: 'recordPrice', params: ({ event }) => event.output } },
        onError: { target: 'waiting', actions: { type: 'recordFailure', params: ({ event }) => event.error as GasPriceFailure } },
      },
    },
  },
});
