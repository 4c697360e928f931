/**
 * Pages of a coin's history (pure): the reference's order (`compare_transactions`: unconfirmed first,
 * then height descending, ties by internal id ascending), the address filter of a target, and the two
 * paging forms. The `from_id` entry itself is skipped, as the reference's `query_offset_by_id`.
 */
import type { TxRecord } from './historyPort.ts';

/** The reference's `compare_transactions`. */
export function compareRecords(a: TxRecord, b: TxRecord): number {
  const aPending = a.blockHeight === 0;
  const bPending = b.blockHeight === 0;
  if (aPending !== bPending) return aPending ? -1 : 1;
  if (a.blockHeight !== b.blockHeight) return b.blockHeight - a.blockHeight;
  return a.txHash < b.txHash ? -1 : a.txHash > b.txHash ? 1 : 0;
}

/** A 1-based page of `limit` entries, or the entries after the one whose internal id is `fromId`. */
export type PageRequest = { readonly pageNumber: number } | { readonly fromId: string };

export interface HistoryPage {
  readonly records: readonly TxRecord[];
  readonly skipped: number;
  /** Entries that pass the filter. */
  readonly total: number;
  /** `false` when `fromId` named no entry of the filtered history (then `records` is empty). */
  readonly fromIdFound: boolean;
}

/**
 * One page of `sorted` (already in {@link compareRecords} order): only entries touching one of
 * `addresses` when given (a target's filter).
 */
export function historyPage(sorted: readonly TxRecord[], request: PageRequest, limit: number, addresses?: ReadonlySet<string>): HistoryPage {
  const passing = addresses === undefined ? sorted : sorted.filter((r) => r.from.some((a) => addresses.has(a)) || r.to.some((a) => addresses.has(a)));
  const total = passing.length;
  if ('fromId' in request) {
    const wanted = request.fromId.toLowerCase();
    const index = passing.findIndex((r) => r.txHash === wanted);
    if (index < 0) return { records: [], skipped: 0, total, fromIdFound: false };
    return { records: passing.slice(index + 1, index + 1 + limit), skipped: index + 1, total, fromIdFound: true };
  }
  const skipped = (request.pageNumber - 1) * limit;
  return { records: passing.slice(skipped, skipped + limit), skipped, total, fromIdFound: true };
}

/** `ceil(total / limit)`, 0 when `limit` is 0 (the reference's `calc_total_pages`). */
export function totalPages(total: number, limit: number): number {
  return limit === 0 ? 0 : Math.ceil(total / limit);
}

/**
 * Confirmations of an entry at `currentBlock`: 0 while unconfirmed or above the tip, else
 * `currentBlock - height + 1` (the reference's legacy rule; its v2 gives unconfirmed entries
 * `currentBlock + 1`, which this service does not copy: docs/compatibility.md §22).
 */
export function confirmationsAt(record: TxRecord, currentBlock: number): number {
  if (record.blockHeight === 0 || record.blockHeight > currentBlock) return 0;
  return currentBlock - record.blockHeight + 1;
}
