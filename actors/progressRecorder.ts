import type { DomainEvent } from '../spec/events.ts';
import type { ActivationProgress } from './ports/activationProgress.ts';

/** Which attempt a recorder reports for. */
export interface AttemptIdentity {
  readonly ticker: string;
  readonly family: string;
  /** The coin actor's attempt number (read when a report comes, once the attempt has started). */
  readonly attempt: () => number;
  /** The task that runs the activation, if any. */
  readonly taskId?: number | undefined;
}

/**
 * The progress of one activation attempt as events for the coin's stream (`append`). Once
 * `close`d (the chain work settled), late reports are dropped: an attempt's progress always comes
 * before its outcome.
 */
export function progressRecorder(identity: AttemptIdentity, append: (event: DomainEvent) => void): ActivationProgress & { close(): void } {
  let open = true;
  let reads = 0;
  const about = () => ({
    ticker: identity.ticker,
    family: identity.family,
    attempt: identity.attempt(),
    ...(identity.taskId === undefined ? {} : { taskId: identity.taskId }),
  });
  const record = (event: DomainEvent) => {
    if (open) append(event);
  };
  return {
    nodeRead() {
      const read = ++reads;
      return (node) => record({ type: 'NodeAttempted', data: { ...about(), read, ...node } });
    },
    tokensRead(read, of) {
      record({ type: 'TokensRead', data: { ...about(), read, of } });
    },
    hdWindowScanned(window) {
      record({ type: 'HdWindowScanned', data: { ...about(), ...window } });
    },
    close() {
      open = false;
    },
  };
}
