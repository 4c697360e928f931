/**
 * Transaction history of the active coins (issue 26): one {@link CoinHistory} per coin activated
 * with `tx_history: true` whose family gives a history source, started when its `CoinActivated` is
 * durable and stopped with its `CoinDisabled` (followed from the log, so the coin registry needs no
 * hook); and the reads `my_tx_history` makes.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../kernel/clock.ts';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import type { ActivatedCoin } from '../../machines/activation.types.ts';
import type { CoinView } from '../coinRequests.ts';
import { compareRecords } from './historyPage.ts';
import type { HistoryAddress, HistorySource, HistoryStore, TxRecord } from './historyPort.ts';
import { CoinHistory, type SyncStatus } from './historySync.ts';

export interface TxHistoryDeps {
  readonly store: HistoryStore;
  readonly clock: Clock;
  /** The registry's view of a coin (its state and the active coin with its connection). */
  view(ticker: string): CoinView;
  /** The coin's history source from its family; `undefined`: the family loads no history (EVM, TRON, QRC20). */
  sourceOf(coin: ActivatedCoin): HistorySource | undefined;
  /** Appends a progress event to the coin's stream. */
  append(ticker: string, event: DomainEvent): Promise<unknown>;
  /** Fetched per chunk. @default 200 */
  readonly chunk?: number;
}

/** What `my_tx_history` reads of a coin. */
export type HistoryRead =
  | { readonly kind: 'inactive' }
  /** Active, but its family loads no history. */
  | { readonly kind: 'unsupported'; readonly currentBlock: number }
  /** Active without `tx_history`, and nothing was ever kept for it (the reference's `StorageIsNotInitialized`). */
  | { readonly kind: 'notInitialized'; readonly currentBlock: number }
  | {
      readonly kind: 'history';
      readonly status: SyncStatus;
      /** Every entry, in the reference's order. */
      readonly records: readonly TxRecord[];
      readonly currentBlock: number;
      readonly decimals: number;
      readonly addresses: readonly HistoryAddress[];
      /** Whether the coin has an HD account (its targets are accounts and addresses, not `iguana`). */
      readonly hd: boolean;
    };

/** Hears new or changed entries of a coin's history (`stream::tx_history`). */
export type HistoryListener = (ticker: string, records: readonly TxRecord[], decimals: number) => void;

export class TxHistoryService {
  readonly #deps: TxHistoryDeps;
  readonly #running = new Map<string, { history: CoinHistory; coin: ActivatedCoin; source: HistorySource }>();
  readonly #listeners = new Set<HistoryListener>();
  #writes: Promise<unknown> = Promise.resolve();

  constructor(deps: TxHistoryDeps) {
    this.#deps = deps;
  }

  /** Follows the log: a coin activated with `tx_history` starts its sync, a disabled one stops it, new HD addresses join it. */
  apply(event: StoredEvent): void {
    if (event.type === 'CoinActivated') this.#start(event.data.ticker);
    else if (event.type === 'CoinDisabled') this.#stop(event.data.ticker);
    // An HD account that lists new addresses: its sync goes on over all of them (from the store:
    // only what the new addresses add is fetched).
    else if ((event.type === 'AddressCreated' || event.type === 'AddressesScanned') && this.#listingGrew(event.data.ticker)) this.#start(event.data.ticker);
  }

  /** Hears new entries of every coin until the returned stop is called. */
  listen(listener: HistoryListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Whether `ticker` is active and its family loads history (for `stream::tx_history::enable`). */
  supports(ticker: string): boolean | undefined {
    const view = this.#deps.view(ticker);
    if (view.state !== 'active' || view.coin === null) return undefined;
    return this.#deps.sourceOf(view.coin) !== undefined;
  }

  /** What is known of `ticker`'s history now (the kept one for a coin active without `tx_history`). */
  async read(ticker: string): Promise<HistoryRead> {
    const view = this.#deps.view(ticker);
    if (view.state !== 'active' || view.coin === null) return { kind: 'inactive' };
    const coin = view.coin;
    const running = this.#running.get(ticker);
    if (running !== undefined && running.coin === coin) {
      const { history, source } = running;
      // A server may list a transaction of a block before it announces that block's header: the
      // tip is at least the highest block an entry is in (else that entry would read unconfirmed).
      const currentBlock = Math.max(history.tip, coin.currentBlock, highestBlock(history.records));
      return { kind: 'history', status: history.status, records: history.records, currentBlock, decimals: coin.decimals, addresses: source.addresses(), hd: coin.hd !== undefined };
    }
    const source = this.#deps.sourceOf(coin);
    if (source === undefined) return { kind: 'unsupported', currentBlock: coin.currentBlock };
    const kept = await this.#deps.store.load(historyKey(coin)).catch(() => undefined);
    if (kept === undefined) return { kind: 'notInitialized', currentBlock: coin.currentBlock };
    const records = [...kept.records].sort(compareRecords);
    return { kind: 'history', status: { state: 'NotEnabled' }, records, currentBlock: Math.max(kept.block, coin.currentBlock, highestBlock(records)), decimals: coin.decimals, addresses: source.addresses(), hd: coin.hd !== undefined };
  }

  /** How many calls the history of `ticker` has sent (the benchmark); `undefined` when it is not synced. */
  requestsOf(ticker: string): number | undefined {
    return this.#running.get(ticker)?.source.requests();
  }

  /** Stops every sync and waits for their progress events to be handed to the log. */
  async stop(): Promise<void> {
    for (const ticker of [...this.#running.keys()]) this.#stop(ticker);
    await this.#writes;
  }

  /** Whether a running sync's coin now has another history source (its family rebuilds it when the listing grew; a scan that found nothing keeps it). */
  #listingGrew(ticker: string): boolean {
    const running = this.#running.get(ticker);
    const coin = this.#deps.view(ticker).coin;
    return running !== undefined && coin !== null && this.#deps.sourceOf(coin) !== running.source;
  }

  #start(ticker: string): void {
    this.#stop(ticker); // a re-activation starts again from the store
    const view = this.#deps.view(ticker);
    const coin = view.coin;
    if (view.state !== 'active' || coin === null || coin.settings?.txHistory !== true) return;
    const source = this.#deps.sourceOf(coin);
    if (source === undefined) return;
    const history = new CoinHistory({
      ticker,
      key: historyKey(coin),
      source,
      store: this.#deps.store,
      clock: this.#deps.clock,
      ...(this.#deps.chunk === undefined ? {} : { chunk: this.#deps.chunk }),
      append: (event) => {
        // Once the coin has gone, a failing pass (its connection closed) records nothing.
        if (this.#running.get(ticker)?.history !== history) return;
        this.#writes = this.#writes.then(() => this.#deps.append(ticker, event)).catch(() => undefined);
      },
      entries: (records) => {
        for (const listener of this.#listeners) listener(ticker, records, coin.decimals);
      },
    });
    this.#running.set(ticker, { history, coin, source });
    void history.start(coin.currentBlock);
  }

  #stop(ticker: string): void {
    this.#running.get(ticker)?.history.stop();
    this.#running.delete(ticker);
  }
}

/**
 * The store's key of a coin's history: the ticker and the wallet (an HD account, else the address),
 * so another wallet or account of the same coin never reads it. No address appears in it.
 */
export function historyKey(coin: ActivatedCoin): string {
  const wallet = coin.hd === undefined ? coin.address : `${coin.hd.walletId}/${coin.hd.accountId}`;
  const digest = createHash('sha256').update(`${coin.ticker}\n${wallet}`).digest('hex').slice(0, 16);
  return `${coin.ticker.replace(/[^A-Za-z0-9_-]/g, '_')}_${digest}`;
}

/** The highest block any of `records` is in (0 when none is confirmed). */
function highestBlock(records: readonly TxRecord[]): number {
  let top = 0;
  for (const r of records) if (r.blockHeight > top) top = r.blockHeight;
  return top;
}
