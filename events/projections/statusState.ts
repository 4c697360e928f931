import type { StoredEvent } from '../../spec/events.ts';
import { canonicalDigest } from './canonicalJson.ts';
import { coinTargetOf, nextStatusValue, statusTarget, type KeyTarget, type StatusValue } from './statusRouting.ts';

/**
 * Every status key in memory: what the KV bucket holds, rebuilt by applying events in order with
 * the same reducers as the projector. Used by replay, and to check the KV against a replay.
 */
export class StatusState {
  readonly #values = new Map<string, StatusValue>();
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
      const keyTarget = coinTargetOf(key, this.#values.get(key));
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
    return this.#values.get(key);
  }

  /** Every key and value, keys sorted. */
  entries(): [string, StatusValue][] {
    return [...this.#values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The whole state as one object (keys sorted). */
  toObject(): Record<string, StatusValue> {
    return Object.fromEntries(this.entries());
  }

  /** Digest of the whole state; equal to {@link statusDigest} of the KV holding the same values. */
  digest(): string {
    return statusDigest(this.#values);
  }

  #applyTo(target: KeyTarget, event: StoredEvent): boolean {
    const next = nextStatusValue(this.#values.get(target.key), event, target);
    if (next === undefined) return false;
    this.#values.set(target.key, next);
    if (target.kind === 'coin') {
      let keys = this.#coinKeysByNode.get(target.nodeId);
      if (keys === undefined) this.#coinKeysByNode.set(target.nodeId, (keys = new Set()));
      keys.add(target.key);
    }
    return true;
  }
}

/** `sha256:<hex>` of the sorted-key JSON of `{key: value}` over all entries. */
export function statusDigest(entries: Iterable<readonly [string, unknown]>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalDigest(Object.fromEntries(sorted));
}
