import type { StoredEvent } from '../../spec/events.ts';

interface Pending {
  readonly ticker: string;
  readonly attempt: number;
  readonly sessionId: string;
}

/**
 * Tracks, while the log is replayed at start-up, coin activations that were requested but never
 * ended (the service died mid-activation). The next start records `ActivationInterrupted` for
 * each, so the audit trail says explicitly what happened.
 */
export class InFlightActivations {
  readonly #pending = new Map<string, Pending>();

  apply(event: StoredEvent): void {
    switch (event.type) {
      case 'ActivationRequested':
        this.#pending.set(event.data.ticker, {
          ticker: event.data.ticker,
          attempt: event.data.attempt,
          sessionId: event.metadata.sessionId,
        });
        break;
      case 'CoinActivated':
      case 'ActivationFailed':
      case 'ActivationCancelled':
      case 'ActivationInterrupted':
        this.#pending.delete(event.data.ticker);
        break;
      default:
        break;
    }
  }

  /** Activations of other sessions that never ended. */
  orphans(currentSessionId: string): Pending[] {
    return [...this.#pending.values()].filter((p) => p.sessionId !== currentSessionId);
  }
}
