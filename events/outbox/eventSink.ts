import { JetStreamApiError, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Wake } from './backoff.ts';
import type { SubjectHead } from '../jetstream/eventMessage.ts';
import { ensureEventsStream, type EventsStreamOptions } from '../jetstream/ensureStream.ts';
import { publishEvent, readSubjectHead } from '../jetstream/streamOps.ts';
import { EVENTS_STREAM } from '../jetstream/subjects.ts';

/** Where the outbox publisher writes: JetStream in production, an in-memory double in unit tests. */
export interface EventSink {
  /**
   * Publishes with `Nats-Msg-Id` = `eventId` and the expected last subject sequence (0: empty
   * subject). `body`: the event's JSON, as text or as its UTF-8 bytes.
   */
  publish(subject: string, body: string | Uint8Array, eventId: string, expectedLastSubjectSeq: number): Promise<{ seq: number; duplicate: boolean }>;
  /** The newest event on `subject` (a wildcard: on any match). */
  head(subject: string): Promise<SubjectHead | undefined>;
  /** Creates the stream if it is missing (never changes an existing one); true when it created it. */
  createStreamIfMissing(): Promise<boolean>;
  /** True when the stream never held anything (first sequence ≤ 1) and has nothing under `filter`. */
  neverHeld(filter: string): Promise<boolean>;
  /** Fires whenever the connection is (re)established: a good moment to retry at once. */
  readonly reconnected: Wake;
  close(): Promise<void>;
}

/** The connection was closed and no way to open another was given. */
export class ConnectionClosedError extends Error {
  constructor() {
    super('the NATS connection is closed and no connect() was given to open another');
    this.name = 'ConnectionClosedError';
  }
}

/** How the JetStream sink reaches NATS. */
export interface JetStreamSinkOptions {
  /** The caller's connection, or a promise of it (e.g. while NATS is still unreachable at start). */
  readonly nc: NatsConnection | Promise<NatsConnection>;
  /** Opens a new connection when the current one is closed; connections it opens are closed by `close()`. */
  readonly connect?: () => Promise<NatsConnection>;
  /** Used only when the stream has to be created because it is missing. */
  readonly stream?: EventsStreamOptions;
  /**
   * How long a PubAck, and any JetStream API answer the publisher needs (a subject's head, the
   * stream's info), is awaited. It bounds how long an attempt lost in a failover keeps the outbox
   * waiting: a stream without a leader answers a publish at once (no responders) but leaves its
   * info unanswered, so each retry during an election costs this much.
   * @default 1000
   */
  readonly publishTimeoutMs?: number;
}

/** {@link JetStreamSinkOptions.publishTimeoutMs}'s default. */
export const DEFAULT_PUBLISH_TIMEOUT_MS = 1_000;

interface Link {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly owned: boolean;
}

/** An {@link EventSink} on JetStream that replaces a closed connection when it can. */
export function jetStreamSink(options: JetStreamSinkOptions): EventSink {
  const reconnected = new Wake();
  const timeoutMs = options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
  let current: Promise<Link> | undefined;
  /** The link `current` resolved to, while it is the current one: publishes skip awaiting it. */
  let ready: Link | undefined;
  let closed = false;
  const owned: NatsConnection[] = [];
  const watchers: { stop(): void }[] = [];

  const link = async (nc: NatsConnection, isOwned: boolean): Promise<Link> => {
    const status = nc.status();
    const stoppable = status as Partial<{ stop(): void }>; // nats.js returns a QueuedIterator
    watchers.push({ stop: () => stoppable.stop?.() });
    void (async () => {
      for await (const s of status) if (s.type === 'reconnect') reconnected.fire();
    })().catch(() => undefined);
    return { nc, js: jetstream(nc), jsm: await jetstreamManager(nc, { checkAPI: false, timeout: timeoutMs }), owned: isOwned };
  };
  const connection = async (): Promise<Link> => {
    if (closed) throw new Error('event sink is closed');
    current ??= Promise.resolve(options.nc).then((nc) => link(nc, false));
    const l = await current.catch((e: unknown) => {
      current = undefined;
      throw e;
    });
    if (!l.nc.isClosed()) return (ready = l);
    ready = undefined;
    if (options.connect === undefined) throw new ConnectionClosedError();
    current = options.connect().then((nc) => {
      owned.push(nc);
      reconnected.fire();
      return link(nc, true);
    });
    return connection();
  };

  return {
    reconnected,
    async publish(subject, body, eventId, expected) {
      const { js } = ready !== undefined && !closed && !ready.nc.isClosed() ? ready : await connection();
      const ack = await publishEvent(js, subject, body, eventId, expected, timeoutMs);
      return { seq: ack.seq, duplicate: ack.duplicate };
    },
    async head(subject) {
      return readSubjectHead((await connection()).jsm, subject);
    },
    async createStreamIfMissing() {
      const { jsm } = await connection();
      try {
        await jsm.streams.info(EVENTS_STREAM);
        return false;
      } catch (e) {
        if (!(e instanceof JetStreamApiError && e.code === 10059)) throw e;
      }
      return (await ensureEventsStream(jsm, options.stream)).created;
    },
    async neverHeld(filter) {
      const { jsm } = await connection();
      const info = await jsm.streams.info(EVENTS_STREAM);
      return info.state.first_seq <= 1 && (await readSubjectHead(jsm, filter)) === undefined;
    },
    async close() {
      closed = true;
      for (const w of watchers) w.stop();
      await Promise.all(owned.map((nc) => nc.close().catch(() => undefined)));
    },
  };
}
