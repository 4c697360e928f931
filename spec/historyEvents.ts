/**
 * Transaction history progress events (issue 26; docs/events.md "Transaction history"), on the coin's
 * stream. The loaded transactions themselves are a cache the service owns (its history store), not
 * events: one event per sync pass that changed something, never one per transaction.
 */
import { Type } from '@sinclair/typebox';
import { event } from './eventParts.ts';

/**
 * A history sync pass of `ticker` found `transactionsLeft` transactions to fetch (new ones, or
 * unconfirmed ones now mined) with the tip at `block`: `sync_status` is `InProgress` until its
 * `HistorySynced` or `HistorySyncFailed`. A pass with nothing to fetch writes none.
 */
export const HistorySyncStarted = event(
  'HistorySyncStarted',
  Type.Object({ ticker: Type.String(), transactionsLeft: Type.Integer({ minimum: 1 }), block: Type.Integer({ minimum: 0 }) }),
);

/**
 * A history sync pass of `ticker` ended with every transaction the server lists stored: `total`
 * entries at block `block`, `added` of them new in this pass (0 only for the first pass of a
 * session that found everything already stored). Written only when the pass added or changed entries,
 * or when it is the session's first: a new block that changes nothing writes nothing.
 */
export const HistorySynced = event(
  'HistorySynced',
  Type.Object({
    ticker: Type.String(),
    total: Type.Integer({ minimum: 0 }),
    added: Type.Integer({ minimum: 0 }),
    block: Type.Integer({ minimum: 0 }),
  }),
);

/**
 * A history sync of `ticker` stopped at an error (`sync_status` `Error`): the server refused a
 * history call (`code` is its JSON-RPC code, -1 when none), or no server answered. The coin and its
 * activation are unaffected; the next change the server pushes tries again.
 */
export const HistorySyncFailed = event('HistorySyncFailed', Type.Object({ ticker: Type.String(), code: Type.Integer(), message: Type.String() }));
