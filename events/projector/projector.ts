import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, type ConsumerMessages, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { silentLog, type Log } from '../../kernel/log.ts';
import { StatusWriter } from './projectorApply.ts';
import { ALL_EVENTS_FILTER, DEFAULT_PROJECTOR_DURABLE, ensureProjectorConsumer } from './projectorConsumer.ts';
import { LagTracker, type ProjectionLag } from './projectorLag.ts';
import { decodeForProjection } from './projectorMessage.ts';
import { openStatusKv } from './statusKv.ts';
import { EVENTS_STREAM } from '../jetstream/subjects.ts';

export type { ProjectionLag } from './projectorLag.ts';
export { ALL_EVENTS_FILTER, DEFAULT_PROJECTOR_DURABLE, nodeEventsFilter } from './projectorConsumer.ts';

/** Options of {@link startProjector}. */
export interface ProjectorOptions {
  /** A connection that reconnects forever (`maxReconnectAttempts: -1`) survives server restarts. */
  readonly nc: NatsConnection;
  /** The projector set: processes with the same name share the work (default `activation-projector`). */
  readonly durableName?: string;
  /** Subject filter: every node by default; `nodeEventsFilter(id)` for one node. */
  readonly filter?: string;
  readonly log?: Log;
  /**
   * Redelivery delay of a message left unacknowledged: by a dead member of the set, or because the
   * consumer's leader was lost with the ack. The set waits this long before the next event, so it
   * bounds a takeover; it must exceed one apply (a stalled apply extends it with `working()`).
   * An existing durable consumer is brought to it.
   * @default 3000
   */
  readonly ackWaitMs?: number;
  /**
   * Lifetime of one pull request (the server then ends it and the client asks again), with an idle
   * heartbeat every half of it: a consumer whose leader moved or whose server died is noticed
   * after two missed heartbeats, about this long, instead of nats.js's 30 s.
   * @default 2000 (at least 1000)
   */
  readonly pullExpiresMs?: number;
  /**
   * Wait for JetStream API and KV answers (consumer info, KV reads and writes): an answer lost in
   * a failover is retried after this long.
   * @default 1000
   */
  readonly requestTimeoutMs?: number;
  /** How often the consumer is polled for lag (default 1 s). */
  readonly pollMs?: number;
  /** Lag above which a warning is logged on each poll (default 10 s). */
  readonly warnLagMs?: number;
}

/** Counters of one projector process. */
export interface ProjectorStats {
  /** Messages applied (each is then acknowledged). */
  readonly messages: number;
  /** KV writes (a session start writes every coin key of its node; a duplicate writes none). */
  readonly keysWritten: number;
  /** Messages refused as undecodable (terminated, never redelivered). */
  readonly refused: number;
  /** Failed attempts to apply a message (retried). */
  readonly retries: number;
}

/** A running projector. */
export interface Projector {
  /** Stops consuming; a message being applied is left unacknowledged (redelivered). */
  stop(): Promise<void>;
  /** The lag as last measured (every message, and every poll). */
  lag(): ProjectionLag;
  /** Resolves once the set has applied every event the stream holds for its filter; `lag()` then reads 0. */
  whenCaughtUp(): Promise<void>;
  /** This process's counters. */
  stats(): ProjectorStats;
}

/** Longest pause between attempts to apply an event or to resubscribe (short: failovers take seconds). */
const RETRY_MAX_MS = 500;

/** {@link ProjectorOptions}' defaults. */
export const PROJECTOR_DEFAULTS = { ackWaitMs: 3_000, pullExpiresMs: 2_000, requestTimeoutMs: 1_000 } as const;

/**
 * Maintains the KV bucket `ACTIVATION_STATUS` from the stream `ACTIVATION_EVENTS`: a durable pull
 * consumer with explicit ack, one message in flight across the set, each applied with
 * compare-and-set and acknowledged after its writes. Idempotent by `metadata.seq`, so redelivery
 * after a crash, a restart or a duplicate publish changes nothing. Transient failures (server
 * restart) are retried; the durable consumer resumes where the set left off.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const { nc } = options;
  const durableName = options.durableName ?? DEFAULT_PROJECTOR_DURABLE;
  const filter = options.filter ?? ALL_EVENTS_FILTER;
  const log = options.log ?? silentLog;
  const timeout = { timeout: options.requestTimeoutMs ?? PROJECTOR_DEFAULTS.requestTimeoutMs };
  const jsm = await jetstreamManager(nc, timeout);
  const kv = await openStatusKv(nc, { log, timeoutMs: timeout.timeout });
  const consumerOptions = { durableName, filter, ackWaitMs: options.ackWaitMs ?? PROJECTOR_DEFAULTS.ackWaitMs };
  await ensureProjectorConsumer(jsm, consumerOptions);
  const js = jetstream(nc, timeout);
  const expires = Math.max(1_000, options.pullExpiresMs ?? PROJECTOR_DEFAULTS.pullExpiresMs);
  const pull = { max_messages: 16, expires, idle_heartbeat: expires / 2 };
  const writer = new StatusWriter(kv);
  const tracker = new LagTracker();
  const stopping = new AbortController();
  const stats = { messages: 0, keysWritten: 0, refused: 0, retries: 0 };
  let messages: ConsumerMessages | undefined;

  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  const apply = async (m: JsMsg): Promise<void> => {
    const decoded = decodeForProjection(m.subject, m.data);
    if (!decoded.ok) {
      log.error('projector: refusing a message', { seq: m.seq, subject: m.subject, reason: decoded.reason });
      m.term();
      stats.refused++;
      tracker.applied(m.info.pending);
      return;
    }
    tracker.delivered(Math.floor(m.info.timestampNanos / 1e6));
    for (let attempt = 1; ; attempt++) {
      if (stopping.signal.aborted) return; // unacknowledged: redelivered to the set
      try {
        stats.keysWritten += await writer.project(decoded.event, decoded.nodeId);
        break;
      } catch (error) {
        stats.retries++;
        if (attempt === 1 || attempt % 10 === 0) {
          log.warn('projector: applying an event failed; retrying', { seq: m.seq, attempt, error: String(error) });
        }
        m.working();
        await pause(Math.min(50 * 2 ** attempt, RETRY_MAX_MS));
      }
    }
    stats.messages++;
    // Fire-and-forget ack: the server delivers the next message only once it has this ack
    // (max_ack_pending 1), and a lost ack means a redelivery that `lastSeq` makes a no-op.
    m.ack();
    tracker.applied(m.info.pending);
  };

  const consumeLoop = async (): Promise<void> => {
    let recreate = false;
    for (let failures = 0; !stopping.signal.aborted; ) {
      try {
        if (recreate) await ensureProjectorConsumer(jsm, consumerOptions); // the stream or consumer was deleted
        recreate = false;
        const consumer = await js.consumers.get(EVENTS_STREAM, durableName);
        const current = await consumer.consume(pull);
        messages = current;
        if (stopping.signal.aborted) await current.close();
        void whenLost(current).then((why) => {
          if (why === undefined || stopping.signal.aborted) return;
          log.warn('projector: consumer lost; recreating it', { why });
          recreate = true;
          void current.close();
        });
        failures = 0;
        for await (const m of current) {
          await apply(m);
          if (stopping.signal.aborted) break;
        }
      } catch (error) {
        failures++;
        recreate = true;
        if (!stopping.signal.aborted) log.warn('projector: consumer failed; resubscribing', { error: String(error), failures });
      }
      if (!stopping.signal.aborted) await pause(Math.min(100 * 2 ** failures, RETRY_MAX_MS));
    }
  };

  const poll = () => pollLag(jsm, durableName, tracker);
  const pollLoop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      await pause(options.pollMs ?? 1_000);
      if (stopping.signal.aborted) return;
      if (await poll()) {
        const lag = tracker.lag(Date.now());
        if (lag.ms > (options.warnLagMs ?? 10_000)) log.warn('projector: projection lag', { ...lag });
      }
    }
  };

  const running = Promise.all([consumeLoop(), pollLoop()]);
  log.info('projector: started', { durableName, filter });

  return {
    async stop() {
      if (stopping.signal.aborted) return running.then(() => undefined);
      stopping.abort();
      await messages?.close().catch(() => undefined);
      await running;
      log.info('projector: stopped', { durableName, ...stats });
    },
    lag: () => tracker.lag(Date.now()),
    async whenCaughtUp() {
      while (!stopping.signal.aborted) {
        const token = tracker.pollStarted();
        const info = await jsm.consumers.info(EVENTS_STREAM, durableName).catch(() => undefined);
        const caughtUp = info !== undefined && info.num_pending === 0 && info.num_ack_pending === 0;
        // The reading that decides is recorded as a poll, so that lag() says what it saw. Without it,
        // lag() kept the last message's pending count, which is the server's estimate (nats-server
        // 2.9 recounts it on a consumer info and can land a few off, so the last message said 4),
        // or a poll answered before the server had processed the last ack. A reading that a message
        // applied here overtook is older news: ask again.
        if (caughtUp && tracker.polled(0, undefined, token)) return;
        await pause(25);
      }
      throw new Error('the projector was stopped before it caught up');
    },
    stats: () => ({ ...stats }),
  };
}

/** Resolves with the reason once `messages` reports its stream or consumer gone (undefined: it ended). */
async function whenLost(messages: ConsumerMessages): Promise<string | undefined> {
  for await (const s of messages.status()) {
    if (s.type === 'consumer_deleted' || s.type === 'consumer_not_found' || s.type === 'stream_not_found') return s.type;
  }
  return undefined;
}

/** Polls the consumer for the set's lag; false if the server did not answer. */
async function pollLag(jsm: JetStreamManager, durableName: string, tracker: LagTracker): Promise<boolean> {
  try {
    const token = tracker.pollStarted();
    const info = await jsm.consumers.info(EVENTS_STREAM, durableName);
    const events = info.num_pending + info.num_ack_pending;
    let oldestAt: number | undefined;
    if (events > 0 && !tracker.busy) {
      // The first unacknowledged message (or an older one outside the filter: an upper bound).
      const next = await jsm.streams.getMessage(EVENTS_STREAM, { seq: info.ack_floor.stream_seq + 1 }).catch(() => null);
      oldestAt = next?.time.getTime();
    }
    tracker.polled(events, oldestAt, token);
    return true;
  } catch {
    return false;
  }
}
