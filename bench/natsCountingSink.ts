/**
 * The outbox publisher's real JetStream sink with call counters: `startOutboxPublisher` is exactly
 * `startOutboxPublisherOn(jetStreamSink(…), options)`, so wrapping the sink changes nothing but
 * lets the bench see how many round trips the publisher made and how long they took.
 */
import { performance } from 'node:perf_hooks';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetStreamSink, type EventSink } from '../events/outbox/eventSink.ts';

/** Round trips the publisher made through its sink. */
export interface SinkCounters {
  publishes: number;
  publishMs: number;
  /** Subject-head lookups (a `last_by_subj` get per subject not in the head cache). */
  heads: number;
  headMs: number;
}

/** A JetStream sink on `nc` and its live counters. */
export function countingJetStreamSink(nc: NatsConnection): { sink: EventSink; counters: SinkCounters } {
  const inner = jetStreamSink({ nc });
  const counters: SinkCounters = { publishes: 0, publishMs: 0, heads: 0, headMs: 0 };
  const sink: EventSink = {
    reconnected: inner.reconnected,
    async publish(subject, body, eventId, expected) {
      const t0 = performance.now();
      try {
        return await inner.publish(subject, body, eventId, expected);
      } finally {
        counters.publishes++;
        counters.publishMs += performance.now() - t0;
      }
    },
    async head(subject) {
      const t0 = performance.now();
      try {
        return await inner.head(subject);
      } finally {
        counters.heads++;
        counters.headMs += performance.now() - t0;
      }
    },
    createStreamIfMissing: () => inner.createStreamIfMissing(),
    neverHeld: (filter) => inner.neverHeld(filter),
    close: () => inner.close(),
  };
  return { sink, counters };
}
