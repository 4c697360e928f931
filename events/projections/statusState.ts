import type { StoredEvent } from '../../spec/events.ts';
import { canonicalDigestOfSortedEntries } from './canonicalJson.ts';
import { coinTargetOf, nextStatusValue, statusTarget, type KeyTarget, type StatusValue } from './statusRouting.ts';
import { nextTaskRecord, type TaskRecord } from './taskReducer.ts';
import { taskStatusValueOf, type TaskStatusValue } from './taskStatusValue.ts';

/**
 * A task key's last record and event, rendered into its value (as `nextTaskStatus` would have)
 * only when read: every task event replaces the whole view, so rendering each one, as the
 * projector must for its KV write, would be most of a replay's work for values nobody reads.
 */
class TaskEntry {
  #value: TaskStatusValue | undefined;
  constructor(
    readonly record: TaskRecord,
    readonly nodeId: string,
    readonly last: { readonly seq: number; readonly time: string },
  ) {}

  get value(): TaskStatusValue {
    return (this.#value ??= taskStatusValueOf(this.record, this.nodeId, this.last));
  }
}

/**
 * Every status key in memory: what the KV bucket holds, rebuilt by applying events in order with
 * the same reducers as the projector. Used by replay, and to check the KV against a replay.
 */
export class StatusState {
  /** Coin keys' values, and task keys' entries. */
  readonly #values = new Map<string, StatusValue | TaskEntry>();
  readonly #coinKeysByNode = new Map<string, Set<string>>();
  readonly #positions = new Map<string, number>();

  /** Applies `event` of node `nodeId`; returns how many keys changed. */
  apply(event: StoredEvent, nodeId: string): number {
    this.#positions.set(nodeId, Math.max(this.#positions.get(nodeId) ?? 0, event.metadata.seq));
    const target = statusTarget(event, nodeId);
    if (target === undefined) return 0;
    if (target.kind !== 'nodeCoins') return this.#applyTo(target, event) ? 1 : 0;
    let changed = 0;
    for (const key of this.#coinKeysByNode.get(target.nodeId) ?? []) {
      const keyTarget = coinTargetOf(key, this.get(key));
      if (keyTarget !== undefined && this.#applyTo(keyTarget, event)) changed++;
    }
    return changed;
  }

  /** Number of keys. */
  get size(): number {
    return this.#values.size;
  }

  /** Highest `metadata.seq` applied of `nodeId` (undefined: none of its events). */
  positionOf(nodeId: string): number | undefined {
    return this.#positions.get(nodeId);
  }

  /** The value of `key`, if the state has it. */
  get(key: string): StatusValue | undefined {
    const value = this.#values.get(key);
    return value instanceof TaskEntry ? value.value : value;
  }

  /** Every key and value, keys sorted. */
  entries(): [string, StatusValue][] {
    return [...this.#values.keys()].sort().map((key) => [key, this.get(key)!]);
  }

  /** The whole state as one object (keys sorted). */
  toObject(): Record<string, StatusValue> {
    return Object.fromEntries(this.entries());
  }

  /** Digest of the whole state; equal to {@link statusDigest} of the KV holding the same values. */
  digest(): string {
    return statusDigest(this.entries());
  }

  #applyTo(target: KeyTarget, event: StoredEvent): boolean {
    if (target.kind === 'task') return this.#applyToTask(target.key, target.nodeId, event);
    const next = nextStatusValue(this.get(target.key), event, target);
    if (next === undefined) return false;
    this.#values.set(target.key, next);
    if (target.kind === 'coin') {
      let keys = this.#coinKeysByNode.get(target.nodeId);
      if (keys === undefined) this.#coinKeysByNode.set(target.nodeId, (keys = new Set()));
      keys.add(target.key);
    }
    return true;
  }

  /** What `nextStatusValue` does for a task key, without rendering (see {@link TaskEntry}). */
  #applyToTask(key: string, nodeId: string, event: StoredEvent): boolean {
    const prev = this.#values.get(key);
    const header = prev instanceof TaskEntry ? prev.record : prev !== undefined && 'status' in prev ? prev : undefined;
    const lastSeq = prev instanceof TaskEntry ? prev.last.seq : prev?.lastSeq;
    if (lastSeq !== undefined && event.metadata.seq <= lastSeq) return false;
    const record = nextTaskRecord(header, event);
    if (record === undefined) return false;
    this.#values.set(key, new TaskEntry(record, nodeId, event.metadata));
    return true;
  }
}

/** `sha256:<hex>` of the sorted-key JSON of `{key: value}` over all entries. */
export function statusDigest(entries: Iterable<readonly [string, unknown]>): string {
  const byKey = new Map(entries); // a repeated key counts once, its last value (as in an object)
  const sorted = [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalDigestOfSortedEntries(sorted);
}
