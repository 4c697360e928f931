/**
 * Raw JetStream throughput on the same server with the same messages: publishing (one at a time
 * like the outbox publisher, and pipelined) and consuming with an ordered consumer that does
 * nothing but JSON.parse.
 */
import { performance } from 'node:perf_hooks';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SentMessage } from './natsLatency.ts';
import { dropStream, freshRawStream, rawSubject } from './natsSetup.ts';

const STREAM = 'BENCH_RAW_PUBLISH';

/** Wall time of a bulk operation over `events` messages. */
export interface BulkTiming {
  readonly events: number;
  readonly ms: number;
}

/**
 * Publishes every message to a fresh raw stream with at most `inFlight` publishes awaiting their
 * PubAck (1: one at a time, as the outbox publisher does); checks the stream holds them all.
 */
export async function rawPublish(nc: NatsConnection, messages: readonly SentMessage[], inFlight: number): Promise<BulkTiming> {
  await freshRawStream(nc, STREAM);
  try {
    const js = jetstream(nc);
    let next = 0;
    const worker = async () => {
      while (next < messages.length) {
        const m = messages[next++]!;
        await js.publish(rawSubject(m.subject), m.body);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const ms = performance.now() - started;
    const stored = (await (await jetstreamManager(nc)).streams.info(STREAM)).state.messages;
    if (stored !== messages.length) throw new Error(`raw stream holds ${stored} messages, expected ${messages.length}`);
    return { events: messages.length, ms };
  } finally {
    await dropStream(nc, STREAM);
  }
}

/**
 * Reads `stream` from sequence 1 to its last message through an ordered consumer (same settings
 * as the replay's source: deliver all, 1,000 messages per pull), JSON.parse-ing each body and
 * nothing else. Timed from creating the consumer to the last message.
 */
export async function rawConsume(nc: NatsConnection, stream: string, filter: string): Promise<BulkTiming> {
  const started = performance.now();
  const total = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const text = new TextDecoder();
  let count = 0;
  let parsed = 0;
  if (total > 0) {
    const messages = await consumer.consume({ max_messages: 1_000 });
    try {
      for await (const m of messages) {
        if (typeof JSON.parse(text.decode(m.data)) === 'object') parsed++;
        if (++count === total) break;
      }
    } finally {
      await messages.close();
    }
  }
  const ms = performance.now() - started;
  if (parsed !== total) throw new Error(`raw consume parsed ${parsed} of ${total} messages`);
  return { events: count, ms };
}
