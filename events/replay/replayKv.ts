import type { KV } from '@nats-io/kv';
import { isCasConflict, listStatusKeys, readStatus, snapshotStatusKv, writeStatus } from '../projector/statusKv.ts';
import { encodeToken } from '../jetstream/subjects.ts';
import { canonicalJson } from '../projections/canonicalJson.ts';
import type { StatusValue } from '../projections/statusRouting.ts';
import { statusDigest, type StatusState } from '../projections/statusState.ts';

/** What {@link writeStateToKv} did. */
export interface KvRewrite {
  /** Keys written (missing or different in the bucket). */
  readonly written: number;
  /** Keys that already held the replayed value. */
  readonly unchanged: number;
  /** Keys the replay does not have, deleted. */
  readonly deleted: number;
  /** Keys left alone: newer than the replay (a projector wrote them meanwhile), or of nodes it did not see. */
  readonly kept: number;
}

/**
 * Rewrites the status bucket with a replayed state, safely next to a running projector: each key
 * is compare-and-set, and a key already past the replay (higher `lastSeq`) is kept. Keys the
 * replay lacks are deleted when the replay saw their node up to their `lastSeq`; only keys of
 * `nodes` are considered when given (a replay of one node's log leaves other nodes alone).
 */
export async function writeStateToKv(kv: KV, state: StatusState, options: { nodes?: readonly string[] } = {}): Promise<KvRewrite> {
  const counts = { written: 0, unchanged: 0, deleted: 0, kept: 0 };
  for (const [key, value] of state.entries()) counts[await putIfNotNewer(kv, key, value)]++;
  const filters = options.nodes === undefined ? ['>'] : options.nodes.map((n) => `${encodeToken(n)}.>`);
  for (const filter of filters) {
    for (const key of await listStatusKeys(kv, filter)) {
      if (state.get(key) !== undefined) continue;
      const entry = await readStatus(kv, key);
      if (entry?.value === undefined) continue;
      const seen = state.positionOf(entry.value.nodeId);
      if (seen === undefined || entry.value.lastSeq > seen) {
        counts.kept++;
        continue;
      }
      try {
        await kv.delete(key, { previousSeq: entry.revision });
        counts.deleted++;
      } catch (error) {
        if (!isCasConflict(error)) throw error;
        counts.kept++;
      }
    }
  }
  return counts;
}

async function putIfNotNewer(kv: KV, key: string, value: StatusValue): Promise<'written' | 'unchanged' | 'kept'> {
  for (;;) {
    const entry = await readStatus(kv, key);
    if (entry?.value !== undefined && entry.value.lastSeq > value.lastSeq) return 'kept';
    if (entry?.value !== undefined && canonicalJson(entry.value) === canonicalJson(value)) return 'unchanged';
    try {
      await writeStatus(kv, key, value, entry?.revision);
      return 'written';
    } catch (error) {
      if (!isCasConflict(error)) throw error;
    }
  }
}

/** Digest of the bucket's live keys (of `node` only, if given), comparable to a replay's. */
export async function kvDigest(kv: KV, options: { node?: string } = {}): Promise<string> {
  return statusDigest(await snapshotStatusKv(kv, options.node === undefined ? '>' : `${encodeToken(options.node)}.>`));
}
