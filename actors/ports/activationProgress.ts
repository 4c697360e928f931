/**
 * The progress an activation reports while it runs (issue 15: `NodeAttempted`, `TokensRead`,
 * `HdWindowScanned`). The coin registry supplies one per attempt and records what it hears as
 * events on the coin's stream; chain work reports through {@link currentActivationProgress}, so the
 * one failover policy and the shared activation helpers report for every family without each
 * family passing it along. Outside an activation (balances, gas price refreshes) there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NodeOutcome } from '../../spec/events.ts';

export { NodeOutcome } from '../../spec/events.ts';

/** One node asked, or skipped, in a failover read. `origin` is safe to show (see `urlLabel`). */
export interface NodeAttempt {
  /** Position of the node in the coin's node list at this read. */
  readonly node: number;
  readonly origin: string;
  /** Nodes tried before this one in the same read (0: the first). */
  readonly retry: number;
  readonly outcome: NodeOutcome;
  readonly ms: number;
  /** `busy` and `skippedBusy`: how long until the node is asked again. */
  readonly retryAfterMs?: number;
}

/** One read of an HD scan (one round trip). */
export interface HdWindow {
  readonly accountIndex: number;
  readonly chain: 'External' | 'Internal';
  readonly fromIndex: number;
  readonly checked: number;
  readonly used: number;
  readonly knownAddresses: number;
}

export interface ActivationProgress {
  /** A failover read starts; the returned function reports each node it asks, in order. */
  nodeRead(): (attempt: NodeAttempt) => void;
  /** `read` of the `of` tokens were read (one report per read that holds tokens). */
  tokensRead(read: number, of: number): void;
  hdWindowScanned(window: HdWindow): void;
}

const scope = new AsyncLocalStorage<ActivationProgress>();

/** Runs `work` (and everything it starts) with `progress` as the current activation's progress. */
export function withActivationProgress<T>(progress: ActivationProgress, work: () => T): T {
  return scope.run(progress, work);
}

/** The progress of the activation this code runs for, if any. */
export function currentActivationProgress(): ActivationProgress | undefined {
  return scope.getStore();
}
