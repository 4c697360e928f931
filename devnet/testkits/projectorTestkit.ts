import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { StoredEvent } from '../../spec/events.ts';
import { ensureEventsStream } from '../../events/jetstream/ensureStream.ts';
import { eventSubject } from '../../events/jetstream/subjects.ts';

/**
 * Test helpers for the projector and replay: the events stream, and events published the way the
 * outbox publisher does (subject per node and aggregate, body the stored event, `Nats-Msg-Id`).
 */

/** A connection to a test server that reconnects forever (so it survives kills and restarts). */
export function connectForever(url: string, name = 'test'): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 100, timeout: 5_000 });
}

/** Creates `ACTIVATION_EVENTS` as the service does (events/jetstream/ensureStream.ts). */
export async function ensureTestStream(nc: NatsConnection): Promise<void> {
  await ensureEventsStream(await jetstreamManager(nc));
}

/**
 * Publishes `events` in order: subject by node and stream, body the JSON, `Nats-Msg-Id` the event
 * id. Like an outbox, a publish that gets no ack (server down) is retried with the same id, for
 * up to 30 s: the stream's duplicate window keeps it from being stored twice.
 */
export async function publishEvents(nc: NatsConnection, events: readonly StoredEvent[], options: { msgId?: (e: StoredEvent) => string } = {}): Promise<number[]> {
  const js = jetstream(nc);
  const seqs: number[] = [];
  for (const event of events) {
    const nodeId = event.metadata.nodeId ?? 'unknown';
    const subject = eventSubject(nodeId, event.metadata.stream);
    const msgID = options.msgId?.(event) ?? event.metadata.eventId;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        seqs.push((await js.publish(subject, JSON.stringify(event), { msgID, timeout: 1_000 })).seq);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  return seqs;
}
