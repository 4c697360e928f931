import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import { coinStream, type EventLog } from '../events/log/eventLog.ts';

/**
 * Appends what coin actors emit to each coin's stream, in order, and lets a command settle only
 * once every event emitted so far for its coin is durable. A failed write turns the answer into
 * `InternalError`: a failed log is fail-stop.
 */
export class CoinEventWriter {
  readonly #log: EventLog;
  readonly #lastWrite = new Map<string, Promise<unknown>>();
  /** Progress events not yet handed to the log, per coin (see {@link appendSoon}). */
  readonly #pending = new Map<string, DomainEvent[]>();

  constructor(log: EventLog) {
    this.#log = log;
  }

  /** Appends `event`, after any progress of the coin still waiting, in the same write. */
  append(ticker: string, event: DomainEvent): void {
    this.#write(ticker, [...this.#take(ticker), event]);
  }

  /**
   * Appends a progress event (`NodeAttempted`, …) once the current turn of the event loop ends, or
   * with the coin's next event if that comes first: an activation's last progress then shares the
   * write (and the fsync) of its outcome instead of costing one of its own before it.
   */
  appendSoon(ticker: string, event: DomainEvent): void {
    const pending = this.#pending.get(ticker);
    if (pending !== undefined) return void pending.push(event);
    this.#pending.set(ticker, [event]);
    setImmediate(() => {
      const events = this.#take(ticker);
      if (events.length > 0) this.#write(ticker, events);
    });
  }

  #take(ticker: string): DomainEvent[] {
    const events = this.#pending.get(ticker) ?? [];
    this.#pending.delete(ticker);
    return events;
  }

  #write(ticker: string, events: DomainEvent[]): void {
    const write = this.#log.append(coinStream(ticker), events);
    this.#lastWrite.set(ticker, write);
    write.catch(() => undefined); // observed by afterDurable
  }

  /** Settles like `outcome`, but only once every event emitted so far for `ticker` is durable. */
  async afterDurable<T>(ticker: string, outcome: Promise<T>): Promise<T> {
    const result = await outcome.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    try {
      await this.#lastWrite.get(ticker);
    } catch (e) {
      throw new ActivationError(ErrorType.InternalError, `could not record the outcome: ${(e as Error).message}`);
    }
    if (!result.ok) throw result.error;
    return result.value;
  }

  /** Writes what waits and waits for every pending write (at stop). */
  async flush(): Promise<void> {
    for (const ticker of [...this.#pending.keys()]) this.#write(ticker, this.#take(ticker));
    await Promise.allSettled(this.#lastWrite.values());
  }
}
