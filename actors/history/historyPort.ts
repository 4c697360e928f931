/**
 * The ports of transaction history (issue 26): what a chain family gives to load a coin's history
 * (a {@link HistorySource}) and where loaded history is kept (a {@link HistoryStore}). The composition
 * root wires the implementations: `infra/utxo/history/` (Electrum, native daemon) and
 * `infra/history/fileHistoryStore.ts`. A later indexer (EVM, TRON) plugs in as another
 * `HistorySource` returned by its family's `history(coin)`.
 */

/** One transaction of a coin's history, amounts in the coin's smallest unit. */
export interface TxRecord {
  readonly txHash: string;
  /** The raw transaction (hex), as the reference's `tx_hex`. */
  readonly txHex: string;
  /** 0 while unconfirmed. */
  readonly blockHeight: number;
  /** Block time (seconds); 0 while unconfirmed. */
  readonly timestamp: number;
  /** Sorted, without repeats (as the reference's v2 builder). */
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** Sum of the inputs' values. */
  readonly totalAmount: bigint;
  readonly spentByMe: bigint;
  readonly receivedByMe: bigint;
  /** Inputs less outputs; `null` for a coinbase (no inputs to pay it). */
  readonly fee: bigint | null;
}

/** An address of the coin whose transactions belong to its history, with its HD position when it has one. */
export interface HistoryAddress {
  readonly address: string;
  readonly hd?: { readonly accountId: number; readonly chain: 'External' | 'Internal'; readonly addressId: number };
}

/** A transaction the server lists for the coin's addresses: its hash and height (0 unconfirmed). */
export interface ListedTx {
  readonly txHash: string;
  readonly height: number;
}

/** The server refused a history call (e.g. `history too large`): the sync stops at `Error`. */
export class HistoryRefusedError extends Error {
  readonly code: number;
  constructor(message: string, code: number) {
    super(message);
    this.name = 'HistoryRefusedError';
    this.code = code;
  }
}

/**
 * How a coin's history is loaded from its chain. Calls go through the coin's own connection (its
 * Electrum pool fails over to the next server per call). A refusal rejects with
 * {@link HistoryRefusedError}; anything else is a transport failure, retried.
 */
export interface HistorySource {
  /** The coin's addresses whose history is loaded (HD: every listed address of the account). */
  addresses(): readonly HistoryAddress[];
  /** Every transaction touching the addresses, and the tip: one batch for all addresses. */
  list(signal: AbortSignal): Promise<{ readonly currentBlock: number; readonly txs: readonly ListedTx[] }>;
  /** The entries of `txs` (at most a few hundred), fetched in batches with bounded concurrency. */
  details(txs: readonly ListedTx[], signal: AbortSignal): Promise<TxRecord[]>;
  /**
   * Hears the chain change for the coin (an Electrum script-hash status or a new block, from the
   * subscriptions the balance watcher already holds): `changed` asks for a new pass, `block` tells
   * the new tip. Returns how to stop. Absent: nothing is pushed (passes run on new activations only).
   */
  follow?(listener: { changed(): void; block(height: number): void }): () => void;
  /** How many requests (calls, counted per batch item) this source has sent; for the benchmark and tests. */
  readonly requests: () => number;
}

/** What a store keeps of a coin's history. */
export interface StoredHistory {
  readonly records: readonly TxRecord[];
  /** The tip when last listed. */
  readonly block: number;
}

/**
 * Keeps each coin's loaded history across restarts, by `key` (the coin and the wallet it belongs
 * to). `save` replaces what was kept; it is called once per fetched chunk, never per transaction.
 */
export interface HistoryStore {
  load(key: string): Promise<StoredHistory | undefined>;
  save(key: string, history: StoredHistory): Promise<void>;
}
