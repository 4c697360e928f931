/**
 * Clients watching the pipeline from outside, on their own connection: a KV watcher (when a
 * status key shows an event) and an ordered consumer on the events stream (when an event is in
 * the stream). Each records performance.now() of the first sighting of every `metadata.seq`.
 */
import { performance } from 'node:perf_hooks';
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { KvWatchInclude, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { StoredEvent } from '../spec/events.ts';
import type { StatusValue } from '../events/projections/statusRouting.ts';
import { EVENTS_STREAM } from '../events/jetstream/subjects.ts';

/** Times at which each event position was first seen, and a way to stop looking. */
export interface Sightings {
  /** `metadata.seq` → performance.now() of its first sighting. */
  readonly at: Map<number, number>;
  /** Values or messages seen that did not parse (should stay 0). */
  readonly unreadable: () => number;
  stop(): Promise<void>;
}

/**
 * Watches the keys under `keyFilter` for updates; an update is the sighting of the event whose
 * position is the value's `lastSeq` (coin and task values both carry it).
 */
export async function watchKvSightings(kv: KV, keyFilter: string): Promise<Sightings> {
  const at = new Map<number, number>();
  let unreadable = 0;
  const watcher = await kv.watch({ key: keyFilter, include: KvWatchInclude.UpdatesOnly });
  const done = (async () => {
    for await (const entry of watcher) {
      const t = performance.now();
      if (entry.operation !== 'PUT') continue;
      try {
        const seq = entry.json<StatusValue>().lastSeq;
        if (!at.has(seq)) at.set(seq, t);
      } catch {
        unreadable++;
      }
    }
  })();
  return {
    at,
    unreadable: () => unreadable,
    async stop() {
      watcher.stop();
      await done;
    },
  };
}

/** Reads every message of the events stream under `filter` as it arrives (the stream must be fresh: it starts at sequence 1). */
export async function watchStreamSightings(nc: NatsConnection, filter: string): Promise<Sightings> {
  const at = new Map<number, number>();
  let unreadable = 0;
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const messages: ConsumerMessages = await consumer.consume();
  const done = (async () => {
    for await (const m of messages) {
      const t = performance.now();
      try {
        const seq = (m.json<StoredEvent>()).metadata.seq;
        if (!at.has(seq)) at.set(seq, t);
      } catch {
        unreadable++;
      }
    }
  })();
  return {
    at,
    unreadable: () => unreadable,
    async stop() {
      await messages.close();
      await done;
    },
  };
}

/** Resolves once `at` holds every one of `seqs`; rejects after `timeoutMs` naming how many are missing. */
export async function untilSighted(sightings: Sightings, seqs: Iterable<number>, timeoutMs: number, what: string): Promise<void> {
  const wanted = [...seqs];
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const missing = wanted.filter((s) => !sightings.at.has(s));
    if (missing.length === 0) return;
    if (performance.now() > deadline) {
      throw new Error(`${what}: ${missing.length} of ${wanted.length} events never seen within ${timeoutMs} ms (first missing seq ${missing[0]})`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
