import type { DomainEvent, StoredEvent } from '../../spec/events.ts';

/**
 * The event log port. The embedded file log implements it today; the NATS JetStream adapter will
 * implement the same contract (and pass the same contract tests).
 */
export interface EventLog {
  /** Session this process writes under (a new one per start). */
  readonly sessionId: string;
  /**
   * Appends events to one aggregate stream (e.g. `coin.ETH`), durably and in call order.
   * Resolves with the stored events once they are on disk.
   */
  append(stream: string, events: readonly DomainEvent[]): Promise<StoredEvent[]>;
  /**
   * Every stored event from global position `fromSeq` (1-based) on, oldest first, up to the newest
   * one whose listeners have run (so a reader never runs ahead of the views they feed).
   */
  read(fromSeq?: number): AsyncIterable<StoredEvent>;
  /** Called for every event appended from now on, after it is durable, in log order. */
  subscribe(listener: (event: StoredEvent) => void): () => void;
  /** Global position of the newest event (0 when empty). */
  readonly lastSeq: number;
  close(): Promise<void>;
}

/** Stream name of a coin's aggregate. */
export const coinStream = (ticker: string): string => `coin.${ticker}`;
/** Stream name of an `task::enable_eth` task. */
export const taskStream = (taskId: number): string => `task.${taskId}`;
/** Stream of node-level events (session starts). */
export const NODE_STREAM = 'node';
