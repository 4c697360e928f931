import type { KV } from '@nats-io/kv';
import type { StoredEvent } from '../../spec/events.ts';
import { coinTargetOf, nextStatusValue, statusTarget, type KeyTarget, type StatusValue } from '../projections/statusRouting.ts';
import { isCasConflict, listStatusKeys, readStatus, writeStatus, type StatusEntry } from './statusKv.ts';

/** Compare-and-set attempts on one key before giving up (each retry re-reads the key). */
const MAX_CAS_ATTEMPTS = 20;

/**
 * Applies events to the status bucket. For each key an event affects (a session start: every
 * coin key of its node) it takes the value and revision, skips the event if it is at or below
 * the value's `lastSeq` (redelivery, duplicate), applies the reducer and writes with
 * compare-and-set. The entries it last read or wrote are cached: a stale one can only make the
 * write fail (then the key is re-read), and a skip decided on it is still right, since a key's
 * `lastSeq` only grows; so a following projector needs one KV round trip per event.
 */
export class StatusWriter {
  readonly #kv: KV;
  readonly #cacheSize: number;
  readonly #cache = new Map<string, StatusEntry | undefined>();

  constructor(kv: KV, options: { readonly cacheSize?: number } = {}) {
    this.#kv = kv;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  /** Applies `event` of node `nodeId`; returns the number of keys written. */
  async project(event: StoredEvent, nodeId: string): Promise<number> {
    const target = statusTarget(event, nodeId);
    if (target === undefined) return 0;
    if (target.kind !== 'nodeCoins') return (await this.#projectKey(target.key, event, () => target)) ? 1 : 0;
    let written = 0;
    for (const key of await listStatusKeys(this.#kv, target.keyFilter)) {
      if (await this.#projectKey(key, event, (value) => coinTargetOf(key, value))) written++;
    }
    return written;
  }

  async #projectKey(key: string, event: StoredEvent, targetFor: (value: StatusValue | undefined) => KeyTarget | undefined): Promise<boolean> {
    let entry = this.#cache.has(key) ? this.#cache.get(key) : await this.#read(key);
    for (let attempt = 1; ; attempt++) {
      const target = targetFor(entry?.value);
      const next = target === undefined ? undefined : nextStatusValue(entry?.value, event, target);
      if (next === undefined) return false;
      try {
        const revision = await writeStatus(this.#kv, key, next, entry?.revision);
        this.#remember(key, { value: next, revision });
        return true;
      } catch (error) {
        this.#cache.delete(key);
        if (!isCasConflict(error) || attempt >= MAX_CAS_ATTEMPTS) throw error;
        entry = await this.#read(key);
      }
    }
  }

  async #read(key: string): Promise<StatusEntry | undefined> {
    const entry = await readStatus(this.#kv, key);
    this.#remember(key, entry);
    return entry;
  }

  #remember(key: string, entry: StatusEntry | undefined): void {
    if (this.#cacheSize <= 0) return;
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    if (this.#cache.size > this.#cacheSize) this.#cache.delete(this.#cache.keys().next().value as string);
  }
}
