import type { StoredEvent } from '../../spec/events.ts';

/** How an activation attempt ended, as `coin_activation_activations_total` labels it. */
export const ActivationOutcome = { Activated: 'activated', Failed: 'failed', Cancelled: 'cancelled' } as const;
export type ActivationOutcome = (typeof ActivationOutcome)[keyof typeof ActivationOutcome];

/** An attempt that ended: its family, outcome and duration (between its events' times). */
export interface FinishedActivation {
  readonly family: string;
  readonly outcome: ActivationOutcome;
  readonly seconds: number;
}

const OUTCOME_OF: Partial<Record<StoredEvent['type'], ActivationOutcome>> = {
  CoinActivated: ActivationOutcome.Activated,
  ActivationFailed: ActivationOutcome.Failed,
  ActivationCancelled: ActivationOutcome.Cancelled,
};

/**
 * Pairs each `ActivationRequested` with the outcome of the same coin and attempt, from the events
 * alone (their log times), so the metrics say what the log says. An attempt that was running when
 * a previous process stopped (`ActivationInterrupted`) was never seen starting here: not counted.
 */
export class ActivationTimer {
  readonly #running = new Map<string, { attempt: number; family: string; at: number }>();

  /** The attempt `event` finishes, if it finishes one this timer saw start. */
  apply(event: StoredEvent): FinishedActivation | undefined {
    if (event.type === 'ActivationRequested') {
      const { ticker, attempt, family } = event.data;
      this.#running.set(ticker, { attempt, family, at: Date.parse(event.metadata.time) });
      return undefined;
    }
    const outcome = OUTCOME_OF[event.type];
    if (outcome === undefined) return undefined;
    const { ticker, attempt } = event.data as { ticker: string; attempt: number };
    const started = this.#running.get(ticker);
    if (started === undefined || started.attempt !== attempt) return undefined;
    this.#running.delete(ticker);
    const seconds = Math.max(0, Date.parse(event.metadata.time) - started.at) / 1000;
    return { family: started.family, outcome, seconds };
  }
}
