import type { JetStreamClient } from '@nats-io/jetstream';
import type { StoredEvent } from '../../spec/events.ts';
import { decodeEventMessage } from '../../events/jetstream/eventMessage.ts';
import { EVENTS_STREAM } from '../../events/jetstream/subjects.ts';

/**
 * Every event on subjects matching `filter` from stream sequence `fromSeq` on, in stream order, as
 * they were when the read started (later messages are not waited for). Uses an ordered consumer
 * (ephemeral, in server memory, no acks), deleted when the iteration ends or is abandoned.
 */
export async function* readEvents(js: JetStreamClient, filter: string, fromSeq = 1): AsyncIterable<StoredEvent> {
  // Up to the last message under the filter now (not the consumer's pending count, which
  // nats-server 2.9 can get one short after a failover).
  const last = await (await js.jetstreamManager()).streams.getMessage(EVENTS_STREAM, { last_by_subj: filter });
  if (last === null || last.seq < fromSeq) return;
  const consumer = await js.consumers.get(EVENTS_STREAM, { filter_subjects: filter, opt_start_seq: Math.max(1, fromSeq) });
  try {
    const messages = await consumer.consume({ max_messages: 512 });
    try {
      for await (const msg of messages) {
        yield decodeEventMessage(msg);
        if (msg.info.streamSequence >= last.seq) return;
      }
    } finally {
      messages.stop();
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
