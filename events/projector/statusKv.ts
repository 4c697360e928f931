import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { StatusValue } from '../projections/statusRouting.ts';
import { EVENTS_STREAM, STATUS_BUCKET } from '../jetstream/subjects.ts';
import { silentLog, type Log } from '../../kernel/log.ts';

/** A key's current value (absent when deleted) and the revision to compare-and-set against. */
export interface StatusEntry {
  readonly value: StatusValue | undefined;
  readonly revision: number;
}

/** The stream that holds the bucket `ACTIVATION_STATUS`. */
export const STATUS_BUCKET_STREAM = `KV_${STATUS_BUCKET}`;

/** Options of {@link openStatusKv}. */
export interface StatusKvOptions {
  /**
   * Replicas of the bucket: a bucket with another count is brought to it (a server that cannot,
   * e.g. a single server asked for 3, leaves it as it is and one warning says so).
   * @default the replicas of the stream `ACTIVATION_EVENTS` (1 if it does not exist)
   */
  readonly replicas?: number;
  /**
   * How long a KV read or write (and the bucket's info) is awaited before it fails and is retried.
   * @default 5000 (nats.js's JetStream default)
   */
  readonly timeoutMs?: number;
  readonly log?: Log;
}

/**
 * Opens the status bucket, creating it (file storage, one value per key) if it is missing, with as
 * many replicas as the events stream (or `replicas`), so that losing one server of a cluster loses
 * neither.
 */
export async function openStatusKv(nc: NatsConnection, options: StatusKvOptions = {}): Promise<KV> {
  const timeout = options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs };
  const jsm = await jetstreamManager(nc, timeout);
  const replicas = options.replicas ?? (await eventsStreamReplicas(jsm));
  const kv = await new Kvm(jetstream(nc, timeout)).create(STATUS_BUCKET, { history: 1, replicas });
  const info = await jsm.streams.info(STATUS_BUCKET_STREAM);
  if (info.config.num_replicas !== replicas) {
    const log = options.log ?? silentLog;
    let now = info.config.num_replicas;
    // A server outside a cluster (nats-server 2.9) accepts any count in an update and keeps 1.
    let refusal = nc.info?.cluster === undefined && replicas > 1 ? 'a server outside a cluster holds 1' : undefined;
    if (refusal === undefined) {
      try {
        now = (await jsm.streams.update(STATUS_BUCKET_STREAM, { ...info.config, num_replicas: replicas })).config.num_replicas;
      } catch (error) {
        refusal = `the server refused to change it: ${(error as Error).message}`;
      }
    }
    if (now === replicas) log.info('status bucket replicas changed', { bucket: STATUS_BUCKET, from: info.config.num_replicas, to: replicas });
    else log.warn(`status bucket ${STATUS_BUCKET} has ${now} replica(s), ${replicas} wanted; ${refusal ?? 'left as it is'}`);
  }
  return kv;
}

async function eventsStreamReplicas(jsm: JetStreamManager): Promise<number> {
  try {
    return (await jsm.streams.info(EVENTS_STREAM)).config.num_replicas;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return 1;
    throw error;
  }
}

/** The key's entry, or `undefined` if it was never written (a deleted key has a revision). */
export async function readStatus(kv: KV, key: string): Promise<StatusEntry | undefined> {
  const entry = await kv.get(key);
  if (entry === null) return undefined;
  return { value: entry.operation === 'PUT' ? entry.json<StatusValue>() : undefined, revision: entry.revision };
}

/**
 * Writes `value` only if the key is still at `revision` (`undefined`: only if it was never
 * written). Throws a CAS conflict ({@link isCasConflict}) when another writer got there first.
 */
export async function writeStatus(kv: KV, key: string, value: StatusValue, revision: number | undefined): Promise<number> {
  const data = JSON.stringify(value);
  return revision === undefined ? kv.create(key, data) : kv.update(key, data, revision);
}

/** True for the error of a compare-and-set that lost against another writer. */
export function isCasConflict(error: unknown): boolean {
  if (error instanceof JetStreamApiError) {
    return error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
  }
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}

/** Keys matching `filter` (NATS wildcards), deleted keys left out. */
export async function listStatusKeys(kv: KV, filter = '>'): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of await kv.keys(filter)) keys.push(key);
  return keys;
}

/** Every live key and its value (for digests and `replay --write-kv`). */
export async function snapshotStatusKv(kv: KV, filter = '>'): Promise<Map<string, StatusValue>> {
  const out = new Map<string, StatusValue>();
  for (const key of await listStatusKeys(kv, filter)) {
    const entry = await readStatus(kv, key);
    if (entry?.value !== undefined) out.set(key, entry.value);
  }
  return out;
}
