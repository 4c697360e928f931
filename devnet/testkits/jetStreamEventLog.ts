import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { systemClock, type Clock } from '../../kernel/clock.ts';
import type { EventLog } from '../../events/log/eventLog.ts';
import { DEFAULT_BACKOFF, backoffDelay, pause, type BackoffPolicy } from '../../events/outbox/backoff.ts';
import { encodeEventBody } from '../../events/jetstream/eventMessage.ts';
import { HeadCache } from '../../events/outbox/publishDecision.ts';
import { readEvents } from './readEvents.ts';
import { InterleavedWriteError, isWrongLastSequence, nodeEventsFilter, publishEvent, readSubjectHead } from '../../events/jetstream/streamOps.ts';
import { EVENTS_STREAM, eventSubject } from '../../events/jetstream/subjects.ts';

/** How to open a {@link JetStreamEventLog}. */
export interface JetStreamEventLogOptions {
  /** A connection the caller owns (closing the log leaves it open). */
  readonly nc: NatsConnection;
  /** The node whose subjects (`activation.events.<node_id>.…`) this log writes and reads. */
  readonly nodeId: string;
  readonly sessionId: string;
  readonly clock?: Clock;
  /** How long one publish waits for its PubAck (default 5 s). */
  readonly publishTimeoutMs?: number;
  /** How long one event is retried (same msg id, so retries cannot duplicate) before `append` fails (default 30 s). */
  readonly appendTimeoutMs?: number;
  readonly backoff?: BackoffPolicy;
}

/**
 * The {@link EventLog} port on JetStream, for one node. Appends are serialized (call order is
 * stream order) and each event is published with `Nats-Msg-Id` = event id and
 * `Nats-Expected-Last-Subject-Sequence` = the aggregate subject's last stream sequence, which this
 * log tracks from its PubAcks (looked up with last-by-subject on first use). If another writer
 * appended to the subject meanwhile, the append fails with {@link InterleavedWriteError} and the
 * subject is looked up afresh on the next append. `seq` is the stream sequence; `streamSeq`
 * continues from the subject's last event. An append of several events is not atomic: when one
 * fails, the ones before it are stored (and were delivered to subscribers).
 *
 * `read` covers this node's subjects only; `subscribe` sees the events appended through this
 * instance, after their PubAck, in order. Message bodies carry `metadata.seq` = this node's last
 * stream sequence + 1 (exact while no other node writes in between; always increasing per node).
 */
export class JetStreamEventLog implements EventLog {
  readonly sessionId: string;
  readonly nodeId: string;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #clock: Clock;
  readonly #publishTimeoutMs: number;
  readonly #appendTimeoutMs: number;
  readonly #backoff: BackoffPolicy;
  readonly #heads = new HeadCache();
  readonly #listeners = new Set<(e: StoredEvent) => void>();
  readonly #closing = new AbortController();
  #tail: Promise<unknown> = Promise.resolve();
  #lastSeq: number;

  private constructor(options: JetStreamEventLogOptions, jsm: JetStreamManager, lastSeq: number) {
    this.sessionId = options.sessionId;
    this.nodeId = options.nodeId;
    this.#jsm = jsm;
    this.#js = jetstream(options.nc);
    this.#clock = options.clock ?? systemClock;
    this.#publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
    this.#appendTimeoutMs = options.appendTimeoutMs ?? 30_000;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#lastSeq = lastSeq;
  }

  /** Opens the log; the `ACTIVATION_EVENTS` stream must exist (see `ensureEventsStream`). */
  static async open(options: JetStreamEventLogOptions): Promise<JetStreamEventLog> {
    const jsm = await jetstreamManager(options.nc);
    await jsm.streams.info(EVENTS_STREAM);
    const head = await readSubjectHead(jsm, nodeEventsFilter(options.nodeId));
    return new JetStreamEventLog(options, jsm, head?.seq ?? 0);
  }

  /** Stream sequence of this node's newest event (0 when it has none). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  append(stream: string, events: readonly DomainEvent[]): Promise<StoredEvent[]> {
    if (this.#closing.signal.aborted) return Promise.reject(new Error('event log is closed'));
    const run = this.#tail.then(() => this.#appendNow(stream, events));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  read(fromSeq = 1): AsyncIterable<StoredEvent> {
    return readEvents(this.#js, nodeEventsFilter(this.nodeId), fromSeq);
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Refuses new appends, stops retrying failing ones and waits for those under way to settle.
   * The connection stays open.
   */
  async close(): Promise<void> {
    const pending = this.#tail;
    this.#closing.abort(new Error('event log is closed'));
    await pending;
    this.#listeners.clear();
  }

  async #appendNow(stream: string, events: readonly DomainEvent[]): Promise<StoredEvent[]> {
    const subject = eventSubject(this.nodeId, stream);
    const stored: StoredEvent[] = [];
    let head = this.#heads.has(subject)
      ? this.#heads.get(subject)
      : await this.#retry(subject, () => readSubjectHead(this.#jsm, subject));
    const time = new Date(this.#clock.now()).toISOString();
    for (const event of events) {
      const metadata = {
        eventId: randomUUID(),
        seq: this.#lastSeq + 1, // on the wire: what it will be unless another node writes first
        stream,
        streamSeq: (head?.streamSeq ?? 0) + 1,
        sessionId: this.sessionId,
        nodeId: this.nodeId,
        time,
      };
      try {
        const body = encodeEventBody({ ...event, metadata } as StoredEvent);
        const expected = head?.seq ?? 0;
        const ack = await this.#retry(subject, async () => {
          try {
            return await publishEvent(this.#js, subject, body, metadata.eventId, expected, this.#publishTimeoutMs);
          } catch (e) {
            throw isWrongLastSequence(e) ? new InterleavedWriteError(subject, expected, e) : e;
          }
        });
        head = { seq: ack.seq, streamSeq: metadata.streamSeq, eventId: metadata.eventId };
        this.#heads.set(subject, head);
      } catch (e) {
        this.#heads.delete(subject); // unknown now: look it up again next time
        throw e;
      }
      const record = { ...event, metadata: { ...metadata, seq: head.seq } } as StoredEvent;
      this.#lastSeq = Math.max(this.#lastSeq, head.seq);
      for (const l of this.#listeners) l(record);
      stored.push(record);
    }
    return stored;
  }

  /**
   * Runs `fn` until it succeeds, retrying failures other than {@link InterleavedWriteError} with
   * backoff until the append timeout (safe for publishes: a repeated msg id is dropped).
   */
  async #retry<T>(subject: string, fn: () => Promise<T>): Promise<T> {
    const deadline = this.#clock.now() + this.#appendTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (e instanceof InterleavedWriteError) throw e;
        const delay = backoffDelay(this.#backoff, attempt);
        if (this.#closing.signal.aborted || this.#clock.now() + delay > deadline) {
          throw new Error(`could not append to ${subject}: ${(e as Error).message}`, { cause: e });
        }
        await pause(this.#clock, delay, this.#closing.signal).catch(() => undefined);
      }
    }
  }
}
