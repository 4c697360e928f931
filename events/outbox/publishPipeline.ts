import { setMaxListeners } from 'node:events';
import type { StoredEvent } from '../../spec/events.ts';
import { NODE_STREAM } from '../log/eventLog.ts';
import { abortable, Wake } from './backoff.ts';
import type { OutboxFeed } from './outboxFeed.ts';
import { publishOutboxEvent, type PublishContext } from './publishLoop.ts';
import { eventSubject } from '../jetstream/subjects.ts';

/**
 * Publishes awaiting their PubAck at once, across subjects (one per subject at most).
 * @default 256
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** Aggregates whose subject is kept built (beyond it the cache starts afresh). */
const SUBJECTS_KEPT = 10_000;

/**
 * Events that must not overtake, or be overtaken by, any other event: the node's own events (a
 * session start resets every coin key of the node, so its place among the coins' events matters).
 */
export function isBarrier(event: StoredEvent): boolean {
  return event.metadata.stream === NODE_STREAM;
}

/**
 * Publishes the feed's events with up to `maxInFlight` awaiting their PubAck. Events of one
 * subject go one after another (each needs the previous one's stream sequence for its expected
 * last subject sequence); events of different subjects overlap, so they may land in the stream
 * out of outbox order, except a {@link isBarrier} event, which waits for everything before it and
 * holds back everything after it. `onPublished(seq)` is called whenever the outbox prefix that is
 * entirely in the stream grows (the mark can never pass an unconfirmed event).
 *
 * Runs until `ctx.signal` aborts or a publish fails for good; it then abandons the other
 * publishes, waits until none is still running (so a rewind cannot race a straggler), and
 * rejects with the first failure (or the signal's reason).
 */
export async function runPublishPipeline(
  ctx: PublishContext,
  feed: OutboxFeed,
  onPublished: (seq: number) => void,
  maxInFlight = DEFAULT_MAX_IN_FLIGHT,
): Promise<never> {
  const failed = new AbortController();
  const signal = AbortSignal.any([ctx.signal, failed.signal]);
  setMaxListeners(maxInFlight + 10, signal); // each publish in flight listens to it
  const pctx: PublishContext = { ...ctx, signal };
  const tails = new Map<string, Promise<void>>();
  const running = new Set<Promise<void>>();
  const settled = new Wake();
  const done = new Set<number>();
  let published = feed.position - 1;
  let failure: { error: unknown } | undefined;

  const advance = (seq: number) => {
    done.add(seq);
    if (seq !== published + 1) return;
    while (done.delete(published + 1)) published++;
    onPublished(published);
  };
  // Publishes started one by one, a few promise hops apart, would each be flushed to the socket
  // on its own (nats.js flushes in a microtask): a write per event. So new subjects' publishes
  // start together, at the next turn of the event loop, and go out in one write.
  let gate: Promise<void> | undefined;
  const nextTurn = (): Promise<void> =>
    (gate ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        gate = undefined;
        resolve();
      }),
    ));
  const subjects = new Map<string, string>(); // aggregate stream → subject, built once per aggregate
  const subjectOf = (stream: string): string => {
    let subject = subjects.get(stream);
    if (subject === undefined) {
      if (subjects.size >= SUBJECTS_KEPT) subjects.clear(); // bounded: task streams keep coming
      subjects.set(stream, (subject = eventSubject(ctx.nodeId, stream)));
    }
    return subject;
  };
  const start = (event: StoredEvent): Promise<void> => {
    const subject = subjectOf(event.metadata.stream);
    const publish = (tails.get(subject) ?? nextTurn()).then(() => publishOutboxEvent(pctx, event, subject));
    const finish = () => {
      running.delete(task);
      if (tails.get(subject) === publish) tails.delete(subject);
      settled.fire();
    };
    const task: Promise<void> = publish.then(
      () => {
        advance(event.metadata.seq);
        finish();
      },
      (error: unknown) => {
        failure ??= { error };
        failed.abort(error);
        finish();
      },
    );
    tails.set(subject, publish);
    running.add(task);
    return task;
  };
  const untilSettled = () => abortable(new Promise<void>((resolve) => settled.once(resolve)), signal);

  try {
    for (;;) {
      while (running.size >= maxInFlight) await untilSettled();
      const event = await feed.next(signal);
      if (!isBarrier(event)) {
        start(event);
        continue;
      }
      while (running.size > 0) await untilSettled();
      await abortable(start(event), signal);
    }
  } catch {
    // the signal aborted: ctx's (stop) or ours (a publish failed); both are handled below
  }
  failed.abort(); // abandon the rest (their retries end at once)
  while (running.size > 0) await Promise.allSettled([...running]);
  throw failure !== undefined ? failure.error : ctx.signal.reason;
}
