/** Connections and streams of the NATS bench, on one local nats-server. */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureEventsStream, eventsStreamConfig } from '../events/jetstream/ensureStream.ts';
import { EVENTS_STREAM, EVENTS_SUBJECT_ROOT, STATUS_BUCKET } from '../events/jetstream/subjects.ts';

/** A connection with the service's settings (infra/nats/connect.ts): reconnects forever. */
export function connectLikeService(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000, pingInterval: 10_000, timeout: 5_000, noAsyncTraces: true });
}

/** Deletes the events stream and the status bucket (with their consumers), then creates the stream as the service does. */
export async function freshEventsStream(jsm: JetStreamManager): Promise<void> {
  for (const name of [EVENTS_STREAM, `KV_${STATUS_BUCKET}`]) await jsm.streams.delete(name).catch(() => false);
  await ensureEventsStream(jsm);
}

/** Root of the raw baseline's subjects: the events' subjects with this root instead. */
export const RAW_SUBJECT_ROOT = 'bench.raw';

/** The raw subject standing for an event subject (same tokens, so the same subject count). */
export function rawSubject(eventSubject: string): string {
  return `${RAW_SUBJECT_ROOT}${eventSubject.slice(EVENTS_SUBJECT_ROOT.length)}`;
}

/**
 * (Re)creates the raw baseline stream `name`: the events stream's settings (file storage, same
 * duplicate window, direct get) on `bench.raw.>`, empty.
 */
export async function freshRawStream(nc: NatsConnection, name: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(name).catch(() => false);
  await jsm.streams.add({ ...eventsStreamConfig(), name, subjects: [`${RAW_SUBJECT_ROOT}.>`] });
}

/** Deletes stream `name` if it exists. */
export async function dropStream(nc: NatsConnection, name: string): Promise<void> {
  await (await jetstreamManager(nc)).streams.delete(name).catch(() => false);
}
