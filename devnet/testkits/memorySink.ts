import { JetStreamApiError } from '@nats-io/jetstream';
import type { StoredEvent } from '../../spec/events.ts';
import type { Clock } from '../../kernel/clock.ts';
import { Wake } from '../../events/outbox/backoff.ts';
import type { EventSink } from '../../events/outbox/eventSink.ts';
import type { SubjectHead } from '../../events/jetstream/eventMessage.ts';

/** One message of a {@link MemorySink}. */
export interface MemoryMessage {
  readonly subject: string;
  readonly seq: number;
  readonly event: StoredEvent;
}

/**
 * An in-memory {@link EventSink} for unit tests, with JetStream's publish semantics: a repeated
 * msg id is a duplicate (while `dedupe` remembers it), and a wrong expected last subject sequence
 * is refused with the server's error. `down` makes every call fail like a timeout.
 */
export class MemorySink implements EventSink {
  readonly reconnected = new Wake();
  readonly messages: MemoryMessage[] = [];
  /** Clock time of every publish or lookup (failed ones too). */
  readonly attempts: number[] = [];
  /** Subject of every lookup of a subject's last message (failed ones too). */
  readonly lookups: string[] = [];
  /** Msg id → stream sequence, like the duplicate window; clear it to let the window pass. */
  readonly dedupe = new Map<string, number>();
  down = false;
  #seq = 0;

  constructor(readonly clock: Clock) {}

  async publish(subject: string, body: string | Uint8Array, eventId: string, expected: number): Promise<{ seq: number; duplicate: boolean }> {
    this.attempts.push(this.clock.now());
    if (this.down) throw new Error('timeout');
    const seen = this.dedupe.get(eventId);
    if (seen !== undefined) return { seq: seen, duplicate: true };
    const last = this.#last(subject)?.seq ?? 0;
    if (last !== expected) {
      throw new JetStreamApiError({ code: 400, err_code: 10071, description: `wrong last sequence: ${last}` });
    }
    const seq = ++this.#seq;
    this.messages.push({ subject, seq, event: JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as StoredEvent });
    this.dedupe.set(eventId, seq);
    return { seq, duplicate: false };
  }

  /** Stores a message as another writer would (no checks). */
  inject(subject: string, event: StoredEvent): void {
    this.messages.push({ subject, seq: ++this.#seq, event });
  }

  async head(subject: string): Promise<SubjectHead | undefined> {
    this.attempts.push(this.clock.now());
    this.lookups.push(subject);
    if (this.down) throw new Error('timeout');
    const m = this.#last(subject);
    return m && { seq: m.seq, streamSeq: m.event.metadata.streamSeq, eventId: m.event.metadata.eventId };
  }

  async createStreamIfMissing(): Promise<boolean> {
    return false;
  }

  async neverHeld(filter: string): Promise<boolean> {
    if (this.down) throw new Error('timeout');
    const prefix = filter.replace(/>$/, '');
    return this.#seq === 0 || !this.messages.some((m) => m.subject.startsWith(prefix));
  }

  /** Forgets everything, as a server that lost its store. */
  wipe(): void {
    this.messages.length = 0;
    this.dedupe.clear();
    this.#seq = 0;
  }

  async close(): Promise<void> {}

  #last(subject: string): MemoryMessage | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i]!.subject === subject) return this.messages[i];
    return undefined;
  }
}
