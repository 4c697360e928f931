import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { StatusValue } from '../projections/statusRouting.ts';
import { STATUS_BUCKET } from '../jetstream/subjects.ts';

/** A key's current value (absent when deleted) and the revision to compare-and-set against. */
export interface StatusEntry {
  readonly value: StatusValue | undefined;
  readonly revision: number;
}

/** Opens the status bucket, creating it (file storage, one value per key) if it is missing. */
export async function openStatusKv(nc: NatsConnection): Promise<KV> {
  return new Kvm(nc).create(STATUS_BUCKET, { history: 1 });
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
