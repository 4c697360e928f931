import type { NatsConnection } from '@nats-io/transport-node';
import { systemClock, type Clock } from '../../kernel/clock.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import type { EventsStreamOptions } from '../jetstream/ensureStream.ts';
import { jetStreamSink, type EventSink } from './eventSink.ts';
import { OutboxFeed, type OutboxSource } from './outboxFeed.ts';
import { MarkWriter, readPublishMark, type MarkBatching } from './publishMark.ts';
import { HeadCache } from './publishDecision.ts';
import { PublishHealth, StreamLostHistory, checkStreamHistory, type PublishContext } from './publishLoop.ts';
import { runPublishPipeline, type DEFAULT_MAX_IN_FLIGHT } from './publishPipeline.ts';
import { silentLog, type Log } from '../../kernel/log.ts';


/** A running outbox publisher. */
export interface OutboxPublisher {
  /** Outbox position up to which every event is in the stream. */
  published(): number;
  /** Outbox events not yet confirmed in the stream. */
  lagEvents(): number;
  /** Resolves once everything appended to the outbox before the call is in the stream. */
  whenCaughtUp(): Promise<void>;
  /** Why the publisher stopped on its own (a conflict on a subject, a closed connection), if it did. */
  failure(): Error | undefined;
  /** Stops publishing (an unconfirmed publish is abandoned; a restart repeats it harmlessly) and saves the mark. */
  stop(): Promise<void>;
}

/** Options of {@link startOutboxPublisherOn} (everything but the transport). */
export interface OutboxPublisherCoreOptions {
  /** The embedded log (the outbox). */
  readonly outbox: OutboxSource;
  readonly nodeId: string;
  /** Where the mark is kept, e.g. `<dbdir>/published.seq`. */
  readonly markFile: string;
  readonly clock?: Clock;
  readonly log?: Log;
  readonly backoff?: BackoffPolicy;
  readonly markBatching?: MarkBatching;
  /** Live events held in memory before falling back to reading the outbox file (default 10 000). */
  readonly bufferLimit?: number;
  /**
   * Publishes awaiting their PubAck at once, across aggregates (one per aggregate at a time).
   * @default 256 ({@link DEFAULT_MAX_IN_FLIGHT})
   */
  readonly maxInFlight?: number;
}

/** Options of {@link startOutboxPublisher}. */
export interface OutboxPublisherOptions extends OutboxPublisherCoreOptions {
  /** The service's connection (or a promise of it); left open by `stop()`. */
  readonly nc: NatsConnection | Promise<NatsConnection>;
  /** Opens a replacement when `nc` gets closed; without it a closed connection stops the publisher. */
  readonly connect?: () => Promise<NatsConnection>;
  /** Settings used only if the stream is missing and must be created again. */
  readonly stream?: EventsStreamOptions;
  /** PubAck (and JetStream API answer) wait per attempt (default 1 s, see `jetStreamSink`). */
  readonly publishTimeoutMs?: number;
}


/**
 * Publishes the outbox to JetStream: every event after the saved mark, each to
 * `activation.events.<node_id>.<aggregate>` with `Nats-Msg-Id` and the expected last subject
 * sequence, in outbox order per aggregate, with publishes of different aggregates in flight at
 * once ({@link runPublishPipeline}); the mark only covers events all confirmed. It never blocks the service: while NATS is down it retries
 * (capped exponential backoff on the clock, at once on reconnect) and events wait in the outbox.
 */
export function startOutboxPublisher(options: OutboxPublisherOptions): Promise<OutboxPublisher> {
  const sink = jetStreamSink({
    nc: options.nc,
    ...(options.connect === undefined ? {} : { connect: options.connect }),
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    ...(options.publishTimeoutMs === undefined ? {} : { publishTimeoutMs: options.publishTimeoutMs }),
  });
  return startOutboxPublisherOn(sink, options);
}

/** {@link startOutboxPublisher} on any {@link EventSink} (unit tests use an in-memory one). */
export async function startOutboxPublisherOn(sink: EventSink, options: OutboxPublisherCoreOptions): Promise<OutboxPublisher> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLog;
  const { seq: mark, damaged } = await readPublishMark(options.markFile);
  if (damaged) log.warn('publish mark unreadable; republishing the outbox (nothing is duplicated)', { markFile: options.markFile });
  const stopping = new AbortController();
  const ctx: PublishContext = {
    sink,
    nodeId: options.nodeId,
    clock,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    log,
    signal: stopping.signal,
    heads: new HeadCache(),
    health: new PublishHealth(),
  };
  const marks = new MarkWriter({
    path: options.markFile,
    clock,
    // The mark only saves work after a restart (re-publishing is checked and skipped), so it is
    // saved seldom: each save is an fsync competing with the outbox's own.
    batching: options.markBatching ?? { everyEvents: 1000, everyMs: 1000 },
    saved: mark,
    onError: (e) => log.warn('could not save the publish mark', { error: (e as Error).message }),
  });
  const feed = new OutboxFeed(options.outbox, mark + 1, options.bufferLimit);
  let published = mark;
  let failure: Error | undefined;
  let waiters: { target: number; resolve(): void; reject(e: Error): void }[] = [];
  const settleWaiters = (error?: Error) => {
    const due = waiters.filter((w) => error !== undefined || published >= w.target);
    waiters = waiters.filter((w) => !due.includes(w));
    for (const w of due) (error === undefined ? w.resolve() : w.reject(error));
  };
  const rewind = () => {
    log.warn('the events stream lacks this node’s history; republishing the outbox from the start', { published });
    ctx.heads.clear();
    feed.rewind(1);
    published = 0;
    marks.note(0);
  };

  const run = async () => {
    let checked = mark === 0;
    for (;;) {
      try {
        if (!checked) await checkStreamHistory(ctx);
        checked = true;
        await runPublishPipeline(ctx, feed, (seq) => {
          published = seq;
          marks.note(published);
          settleWaiters();
        }, options.maxInFlight);
      } catch (e) {
        if (stopping.signal.aborted) return;
        if (!(e instanceof StreamLostHistory)) throw e;
        checked = true;
        rewind();
      }
    }
  };
  const running = run().catch((e: unknown) => {
    failure = e instanceof Error ? e : new Error(String(e));
    log.error('outbox publisher stopped; events stay in the outbox until it is restarted', { error: failure.message });
    settleWaiters(failure);
  });

  let stopped: Promise<void> | undefined;
  return {
    published: () => published,
    lagEvents: () => Math.max(0, options.outbox.lastSeq - published),
    failure: () => failure,
    whenCaughtUp() {
      if (failure !== undefined) return Promise.reject(failure);
      if (stopping.signal.aborted) return Promise.reject(new Error('outbox publisher is stopped'));
      const target = options.outbox.lastSeq;
      if (published >= target) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ target, resolve, reject }));
    },
    stop() {
      stopped ??= (async () => {
        stopping.abort(new Error('outbox publisher is stopped'));
        await running;
        feed.close();
        settleWaiters(new Error('outbox publisher is stopped'));
        await marks.flush();
        await sink.close();
      })();
      return stopped;
    },
  };
}
