import type { StoredEvent } from '../../spec/events.ts';
import type { Clock } from '../../kernel/clock.ts';
import { abortWake, backoffDelay, pause, type BackoffPolicy, type Wake } from './backoff.ts';
import { ConnectionClosedError, type EventSink } from './eventSink.ts';
import { EventMessageError, encodeEventBody } from '../jetstream/eventMessage.ts';
import { storedJsonOf } from '../log/embeddedEventLog.ts';
import { HeadCache, decidePublish } from './publishDecision.ts';
import { InterleavedWriteError, isNoResponders, isWrongLastSequence, nodeEventsFilter } from '../jetstream/streamOps.ts';
import { eventSubject } from '../jetstream/subjects.ts';
import type { Log } from '../../kernel/log.ts';

/** The stream lost this node's history (it was recreated empty): publish the outbox from the start. */
export class StreamLostHistory extends Error {
  constructor() {
    super('the events stream holds none of this node’s events');
    this.name = 'StreamLostHistory';
  }
}

/** Another history was written on an aggregate's subject; the publisher stops rather than mix them. */
export class OutboxConflictError extends Error {
  constructor(subject: string, reason: string) {
    super(`cannot publish to ${subject}: ${reason}; stopping the outbox publisher (is another service using this node id?)`);
    this.name = 'OutboxConflictError';
  }
}

/** Errors no retry can fix. */
export function isFatal(e: unknown): boolean {
  return (
    e instanceof OutboxConflictError ||
    e instanceof InterleavedWriteError ||
    e instanceof EventMessageError ||
    e instanceof ConnectionClosedError
  );
}

/** What publishing one event needs. */
export interface PublishContext {
  readonly sink: EventSink;
  readonly nodeId: string;
  readonly clock: Clock;
  readonly backoff: BackoffPolicy;
  readonly log: Log;
  readonly signal: AbortSignal;
  readonly heads: HeadCache;
  readonly health: PublishHealth;
}

/**
 * Whether publishing is failing. Many publishes are in flight at once, so an outage is logged
 * when the first of them fails and its end when the first of them succeeds again, not per publish.
 */
export class PublishHealth {
  #failingSince: number | undefined;

  failed(ctx: Pick<PublishContext, 'clock' | 'log'>, what: string, error: unknown): void {
    if (this.#failingSince !== undefined) return;
    this.#failingSince = ctx.clock.now();
    ctx.log.warn(`event publishing failed, retrying: ${what}`, { error: (error as Error).message });
  }

  succeeded(ctx: Pick<PublishContext, 'clock' | 'log'>, what: string): void {
    if (this.#failingSince === undefined) return;
    ctx.log.info(`event publishing recovered: ${what}`, { ms: ctx.clock.now() - this.#failingSince });
    this.#failingSince = undefined;
  }
}

/**
 * Runs `attempt` until it succeeds. Fatal errors and aborts end it; a publish nobody answered may
 * mean the stream is gone, so it is created again (and if so, {@link StreamLostHistory} is thrown);
 * anything else is retried after a capped exponential backoff, cut short when NATS reconnects.
 */
export async function retrying<T>(ctx: PublishContext, what: string, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      const result = await settleUnlessInterrupted(attempt(), ctx.sink.reconnected, ctx.signal);
      if (n > 0) ctx.health.succeeded(ctx, what);
      return result;
    } catch (e) {
      if (ctx.signal.aborted || isFatal(e) || e instanceof StreamLostHistory) throw e;
      if (e === RECONNECTED) continue; // an attempt sent before the outage may wait out its timeout: retry now
      if (isNoResponders(e) && (await ctx.sink.createStreamIfMissing().catch(() => false))) throw new StreamLostHistory();
      ctx.health.failed(ctx, what, e);
      // No responders while the stream exists: it has no leader (an election after a server's
      // loss, a few seconds). Ask again soon, so publishing resumes right after the election.
      const delay = isNoResponders(e) ? Math.min(NO_LEADER_RETRY_MS, backoffDelay(ctx.backoff, n)) : backoffDelay(ctx.backoff, n);
      await pause(ctx.clock, delay, ctx.signal, ctx.sink.reconnected);
    }
  }
}

const RECONNECTED = new Error('reconnected');

/** Longest pause between attempts while the stream has no leader. */
export const NO_LEADER_RETRY_MS = 200;

/**
 * Settles like `attempt`, or rejects with {@link RECONNECTED} when the connection comes back first
 * (the abandoned attempt may still land; its repeat is then a duplicate the stream drops), or with
 * the signal's reason as soon as `signal` aborts. One promise per attempt: this runs per publish.
 */
function settleUnlessInterrupted<T>(attempt: Promise<T>, reconnected: Wake, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const cancelAbort = abortWake(signal).once(() => (cancelReconnect(), reject(signal.reason)));
    const cancelReconnect = reconnected.once(() => (cancelAbort(), reject(RECONNECTED)));
    const done = () => (cancelReconnect(), cancelAbort());
    attempt.then(
      (v) => (done(), resolve(v)),
      (e: unknown) => (done(), reject(e)),
    );
  });
}

/** Throws {@link StreamLostHistory} when the stream never held anything of this node. */
export function checkStreamHistory(ctx: PublishContext): Promise<void> {
  return retrying(ctx, 'checking the events stream', async () => {
    if (await ctx.sink.neverHeld(nodeEventsFilter(ctx.nodeId))) throw new StreamLostHistory();
  });
}

/**
 * Publishes one outbox event to its aggregate's subject unless the subject already holds it,
 * with `Nats-Msg-Id` and the expected last subject sequence. The subject's last message is kept
 * in `ctx.heads` after each publish, so it is looked up only for a subject not published since
 * the start, and not even then for an aggregate's first event: that one is sent expecting an
 * empty subject, and only a refusal makes it look. A wrong-last-sequence answer makes it look
 * the subject up again and decide afresh at once (three times at most, then it is a conflict).
 * `subject`: the event's subject, if the caller has it already.
 */
export function publishOutboxEvent(ctx: PublishContext, event: StoredEvent, subject = eventSubject(ctx.nodeId, event.metadata.stream)): Promise<void> {
  const { eventId, streamSeq } = event.metadata;
  const body = messageBody(event, ctx.nodeId);
  const published = (ack: { seq: number }) => {
    const known = ctx.heads.peek(subject); // an abandoned attempt must not move the head back
    if (known === undefined || known.streamSeq < streamSeq) ctx.heads.set(subject, { seq: ack.seq, streamSeq, eventId });
  };
  let guess = streamSeq === 1;
  return retrying(ctx, `publishing ${subject}`, async () => {
    if (guess && !ctx.heads.has(subject)) {
      try {
        return published(await ctx.sink.publish(subject, body, eventId, 0));
      } catch (e) {
        if (!isWrongLastSequence(e)) throw e;
        guess = false; // the subject holds something (this event, outside the duplicate window?): look
      }
    }
    for (let refusals = 0; ; ) {
      if (!ctx.heads.has(subject)) ctx.heads.set(subject, await ctx.sink.head(subject));
      // peek: a publish renews the subject's place in the cache anyway (`published` sets it)
      const decision = decidePublish({ eventId, streamSeq }, ctx.heads.peek(subject));
      if (decision.kind === 'skip') return;
      if (decision.kind === 'conflict') throw new OutboxConflictError(subject, decision.reason);
      if (decision.gap) ctx.log.warn('publishing after a gap in an aggregate (earlier events missing)', { subject, streamSeq });
      try {
        return published(await ctx.sink.publish(subject, body, eventId, decision.expectedLastSubjectSeq));
      } catch (e) {
        if (!isWrongLastSequence(e)) throw e;
        ctx.heads.delete(subject);
        guess = false;
        if (++refusals > 3) throw new InterleavedWriteError(subject, decision.expectedLastSubjectSeq, e);
        ctx.log.warn('subject moved on unexpectedly; looking it up again', { subject, streamSeq, error: (e as Error).message });
      }
    }
  });
}

/**
 * The message body of an outbox event: its JSON with `metadata.nodeId` set to the publishing
 * node. An event read back from the log under that node id is sent as the log's own JSON bytes
 * (byte for byte what encoding it again would give), without a stringify and UTF-8 encoding.
 */
function messageBody(event: StoredEvent, nodeId: string): string | Uint8Array {
  if (event.metadata.nodeId !== nodeId) return encodeEventBody({ ...event, metadata: { ...event.metadata, nodeId } });
  return storedJsonOf(event) ?? encodeEventBody(event);
}
