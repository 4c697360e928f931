import type { SubjectHead } from '../jetstream/eventMessage.ts';

/** What to do with one outbox event, given the last message on its subject. */
export type PublishDecision =
  | { readonly kind: 'publish'; readonly expectedLastSubjectSeq: number; readonly gap: boolean }
  | { readonly kind: 'skip' }
  | { readonly kind: 'conflict'; readonly reason: string };

/**
 * Events of one aggregate are published in `streamSeq` order, so a subject whose last event has
 * this event's `streamSeq` (same id) or a higher one already holds it: skip. Same `streamSeq`
 * with another id means a different history was written there: conflict. Otherwise publish,
 * expecting the subject's last sequence (`gap` when events between are missing, e.g. expired).
 */
export function decidePublish(event: { eventId: string; streamSeq: number }, head: SubjectHead | undefined): PublishDecision {
  if (head === undefined) return { kind: 'publish', expectedLastSubjectSeq: 0, gap: event.streamSeq > 1 };
  if (head.streamSeq > event.streamSeq) return { kind: 'skip' };
  if (head.streamSeq === event.streamSeq) {
    return head.eventId === event.eventId
      ? { kind: 'skip' }
      : { kind: 'conflict', reason: `its event ${event.streamSeq} is ${head.eventId}, not ${event.eventId}` };
  }
  return { kind: 'publish', expectedLastSubjectSeq: head.seq, gap: head.streamSeq < event.streamSeq - 1 };
}

/** Last known message per subject, least recently used ones forgotten beyond `limit` (looked up again). */
export class HeadCache {
  readonly #limit: number;
  readonly #heads = new Map<string, SubjectHead | undefined>();

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  has(subject: string): boolean {
    return this.#heads.has(subject);
  }

  /** The known head, without counting as a use. */
  peek(subject: string): SubjectHead | undefined {
    return this.#heads.get(subject);
  }

  get(subject: string): SubjectHead | undefined {
    const head = this.#heads.get(subject);
    if (this.#heads.delete(subject)) this.#heads.set(subject, head);
    return head;
  }

  set(subject: string, head: SubjectHead | undefined): void {
    this.#heads.delete(subject);
    this.#heads.set(subject, head);
    if (this.#heads.size > this.#limit) this.#heads.delete(this.#heads.keys().next().value!);
  }

  delete(subject: string): void {
    this.#heads.delete(subject);
  }

  clear(): void {
    this.#heads.clear();
  }
}
