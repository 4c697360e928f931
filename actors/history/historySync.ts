/**
 * The history of one coin while it is active with `tx_history: true` (issue 26): loads what the store
 * kept, asks the source which transactions exist, fetches only the ones it does not hold (newest
 * first, in chunks: each chunk is saved before the next), then waits for the source to push a
 * change. One pass at a time; a change during a pass runs one more pass after it.
 */
import { sleep, type Clock } from '../../kernel/clock.ts';
import type { DomainEvent } from '../../spec/events.ts';
import { compareRecords } from './historyPage.ts';
import { HistoryRefusedError, type HistorySource, type HistoryStore, type ListedTx, type TxRecord } from './historyPort.ts';

/** Where a coin's history sync stands (the reference's `HistorySyncState`). */
export type SyncStatus =
  | { readonly state: 'NotEnabled' | 'NotStarted' | 'Finished' }
  | { readonly state: 'InProgress'; readonly transactionsLeft: number }
  | { readonly state: 'Error'; readonly code: number; readonly message: string };

/** Transactions fetched per chunk (one save per chunk). @default 200 */
export const DEFAULT_HISTORY_CHUNK = 200;
/** Transport failures of one pass retried before the status turns to Error. @default 3 */
const TRANSPORT_RETRIES = 3;
/** First wait before retrying a transport failure (doubled each time). @default 1000 */
const RETRY_BASE_MS = 1_000;

export interface CoinHistoryDeps {
  readonly ticker: string;
  /** The store's key of this coin's history (its ticker and its wallet). */
  readonly key: string;
  readonly source: HistorySource;
  readonly store: HistoryStore;
  readonly clock: Clock;
  /** Records a progress event on the coin's stream. */
  append(event: DomainEvent): void;
  /** New or changed entries, after they are saved (for `stream::tx_history`). */
  entries(records: readonly TxRecord[]): void;
  /** @default {@link DEFAULT_HISTORY_CHUNK} */
  readonly chunk?: number;
}

export class CoinHistory {
  readonly #deps: CoinHistoryDeps;
  readonly #abort = new AbortController();
  readonly #byHash = new Map<string, TxRecord>();
  #sorted: TxRecord[] = [];
  #status: SyncStatus = { state: 'NotStarted' };
  #tip = 0;
  #running: Promise<void> | undefined;
  #again = false;
  #passes = 0;
  #stopFollowing: (() => void) | undefined;

  constructor(deps: CoinHistoryDeps) {
    this.#deps = deps;
  }

  get status(): SyncStatus {
    return this.#status;
  }

  /** Every stored entry in the reference's order. */
  get records(): readonly TxRecord[] {
    return this.#sorted;
  }

  /** The highest block the source has told of. */
  get tip(): number {
    return this.#tip;
  }

  /** Loads the kept history, follows the source's pushes and runs the first pass. */
  async start(tip: number): Promise<void> {
    this.#tip = tip;
    const kept = await this.#deps.store.load(this.#deps.key).catch(() => undefined);
    if (kept !== undefined) {
      for (const r of kept.records) this.#byHash.set(r.txHash, r);
      this.#resort();
      this.#tip = Math.max(this.#tip, kept.block);
    }
    if (this.#abort.signal.aborted) return;
    this.#stopFollowing = this.#deps.source.follow?.({
      changed: () => this.trigger(),
      block: (height) => {
        this.#tip = Math.max(this.#tip, height);
        // An unconfirmed entry may have been mined (its height and time change), or a sync that
        // stopped at an error may pass now: list again.
        if (this.#sorted[0]?.blockHeight === 0 || this.#status.state === 'Error') this.trigger();
      },
    });
    this.trigger();
  }

  /** Asks for a pass (one more after the running one, if any). */
  trigger(): void {
    if (this.#abort.signal.aborted) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => (this.#running = undefined));
  }

  /** Resolves when no pass runs (tests, the benchmark). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  stop(): void {
    this.#abort.abort(new Error('history sync stopped'));
    this.#stopFollowing?.();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      await this.#passWithRetries();
    } while (this.#again && !this.#abort.signal.aborted);
  }

  async #passWithRetries(): Promise<void> {
    const signal = this.#abort.signal;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#pass(signal);
      } catch (error) {
        if (signal.aborted) return;
        const refused = error instanceof HistoryRefusedError;
        if (!refused && attempt < TRANSPORT_RETRIES) {
          try {
            await sleep(this.#deps.clock, RETRY_BASE_MS * 2 ** attempt, signal);
          } catch {
            return;
          }
          continue;
        }
        const code = refused ? error.code : -1;
        const message = error instanceof Error ? error.message : String(error);
        this.#status = { state: 'Error', code, message };
        this.#deps.append({ type: 'HistorySyncFailed', data: { ticker: this.#deps.ticker, code, message } });
        return;
      }
    }
  }

  async #pass(signal: AbortSignal): Promise<void> {
    const { source, ticker } = this.#deps;
    const first = this.#passes++ === 0;
    const listed = await source.list(signal);
    signal.throwIfAborted();
    this.#tip = Math.max(this.#tip, listed.currentBlock);
    const dropped = this.#dropEvicted(listed.txs);
    const missing = listed.txs.filter((t) => this.#byHash.get(t.txHash)?.blockHeight !== t.height).sort(newestFirst);
    if (missing.length > 0) {
      this.#status = { state: 'InProgress', transactionsLeft: missing.length };
      this.#deps.append({ type: 'HistorySyncStarted', data: { ticker, transactionsLeft: missing.length, block: this.#tip } });
    }
    const chunk = this.#deps.chunk ?? DEFAULT_HISTORY_CHUNK;
    for (let at = 0; at < missing.length; at += chunk) {
      const records = await source.details(missing.slice(at, at + chunk), signal);
      signal.throwIfAborted();
      for (const r of records) this.#byHash.set(r.txHash, r);
      this.#resort();
      await this.#save();
      this.#status = { state: 'InProgress', transactionsLeft: Math.max(0, missing.length - at - chunk) };
      this.#deps.entries(records);
    }
    if (dropped > 0 && missing.length === 0) await this.#save();
    this.#status = { state: 'Finished' };
    if (first || missing.length > 0 || dropped > 0) {
      this.#deps.append({ type: 'HistorySynced', data: { ticker, total: this.#sorted.length, added: missing.length, block: this.#tip } });
    }
  }

  /** Unconfirmed entries the server no longer lists left the mempool: they go (confirmed ones stay). */
  #dropEvicted(listed: readonly ListedTx[]): number {
    const present = new Set(listed.map((t) => t.txHash));
    let dropped = 0;
    for (const r of this.#sorted) {
      if (r.blockHeight === 0 && !present.has(r.txHash)) {
        this.#byHash.delete(r.txHash);
        dropped++;
      }
    }
    if (dropped > 0) this.#resort();
    return dropped;
  }

  #resort(): void {
    this.#sorted = [...this.#byHash.values()].sort(compareRecords);
  }

  #save(): Promise<void> {
    return this.#deps.store.save(this.#deps.key, { records: this.#sorted, block: this.#tip });
  }
}

/** Unconfirmed first, then the highest blocks: the first page is served first. */
function newestFirst(a: ListedTx, b: ListedTx): number {
  if ((a.height <= 0) !== (b.height <= 0)) return a.height <= 0 ? -1 : 1;
  return b.height - a.height || (a.txHash < b.txHash ? -1 : 1);
}
