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

  constructor(log: EventLog) {
    this.#log = log;
  }

  append(ticker: string, event: DomainEvent): void {
    const write = this.#log.append(coinStream(ticker), [event]);
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

  /** Waits for every pending write (at stop). */
  async flush(): Promise<void> {
    await Promise.allSettled(this.#lastWrite.values());
  }
}
