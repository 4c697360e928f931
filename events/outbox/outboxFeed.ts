import type { StoredEvent } from '../../spec/events.ts';
import type { EventLog } from '../log/eventLog.ts';
import { Wake } from './backoff.ts';

/** What the feed needs of the outbox (an `EmbeddedEventLog`). */
export type OutboxSource = Pick<EventLog, 'read' | 'subscribe' | 'lastSeq'>;

/**
 * The outbox's events one at a time, strictly in position order without gaps, starting at a
 * given position: first read back from the log, then taken from live notifications. Live events
 * are buffered up to a limit; beyond it (a long NATS outage) the buffer is dropped and the feed
 * reads the log again from where it is, so memory stays bounded and nothing is skipped.
 */
export class OutboxFeed {
  readonly #source: OutboxSource;
  readonly #bufferLimit: number;
  readonly #arrived = new Wake();
  readonly #unsubscribe: () => void;
  #next: number;
  #live: StoredEvent[] = [];
  #liveHead = 0;
  #overflowed = false;
  #reader: AsyncIterator<StoredEvent> | undefined;

  constructor(source: OutboxSource, from: number, bufferLimit = 10_000) {
    this.#source = source;
    this.#bufferLimit = bufferLimit;
    this.#next = from;
    this.#unsubscribe = source.subscribe((e) => this.#onLive(e));
    this.#reader = source.read(from)[Symbol.asyncIterator]();
  }

  /** Position of the event {@link next} will return. */
  get position(): number {
    return this.#next;
  }

  /** The next event; waits for one to be appended. Rejects when `signal` aborts. */
  async next(signal: AbortSignal): Promise<StoredEvent> {
    for (;;) {
      if (this.#reader !== undefined) {
        // A read of the log file always finishes soon: awaited as is (no abort race per event),
        // with the signal checked before and after.
        if (signal.aborted) throw signal.reason;
        const r = await this.#reader.next();
        if (signal.aborted) throw signal.reason;
        if (r.done) {
          this.#reader = undefined;
          continue;
        }
        const event = this.#take(r.value);
        if (event === 'gap') throw new Error(`outbox skips from position ${this.#next - 1} to ${r.value.metadata.seq}`);
        if (event !== undefined) return event;
        continue;
      }
      if (this.#overflowed) {
        this.#rewindReader();
        continue;
      }
      if (this.#liveHead < this.#live.length) {
        const candidate = this.#live[this.#liveHead++]!;
        if (this.#liveHead === this.#live.length) (this.#live = []), (this.#liveHead = 0);
        const event = this.#take(candidate);
        if (event === 'gap') this.#rewindReader(); // e.g. appended while a read was finishing: read it back
        else if (event !== undefined) return event;
        continue;
      }
      await this.#arrival(signal);
    }
  }

  /** Starts over at position `from` (e.g. 1 when the stream lost this node's history). */
  rewind(from: number): void {
    this.#next = from;
    this.#rewindReader();
  }

  /** Stops listening and releases the log reader. */
  close(): void {
    this.#unsubscribe();
    void this.#reader?.return?.();
    this.#reader = undefined;
  }

  #arrival(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => (cancel(), reject(signal.reason));
      const cancel = this.#arrived.once(() => (signal.removeEventListener('abort', onAbort), resolve()));
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #take(event: StoredEvent): StoredEvent | 'gap' | undefined {
    if (event.metadata.seq < this.#next) return undefined;
    if (event.metadata.seq > this.#next) return 'gap';
    this.#next++;
    return event;
  }

  #rewindReader(): void {
    void this.#reader?.return?.();
    this.#overflowed = false;
    this.#live = [];
    this.#liveHead = 0;
    this.#reader = this.#source.read(this.#next)[Symbol.asyncIterator]();
  }

  #onLive(event: StoredEvent): void {
    if (this.#overflowed) return;
    if (this.#live.length - this.#liveHead >= this.#bufferLimit) {
      this.#overflowed = true;
      this.#live = [];
      this.#liveHead = 0;
    } else {
      this.#live.push(event);
    }
    this.#arrived.fire();
  }
}
