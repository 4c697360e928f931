import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { StoredEvent } from '../../spec/events.ts';
import { LOG_FILE } from '../log/embeddedEventLog.ts';
import { ALL_EVENTS_FILTER, nodeEventsFilter } from '../projector/projectorConsumer.ts';
import { decodeForProjection } from '../projector/projectorMessage.ts';
import { EVENTS_STREAM } from '../jetstream/subjects.ts';
import { eventNodeId } from '../projections/statusRouting.ts';
import { decodeRecord } from '../log/recordCodec.ts';

/** One event of a replay, with its node and how far the source has been read. */
export interface ReplayItem {
  readonly event: StoredEvent;
  readonly nodeId: string;
  /** Progress so far, in the source's unit (0 … total). */
  readonly position: number;
}

/** Where a replay reads events from, oldest first. */
export interface ReplaySource {
  /** For messages: `nats://… ACTIVATION_EVENTS`, or the log file. */
  readonly description: string;
  /** What `position` and `total` count. */
  readonly unit: 'events' | 'bytes';
  /** Progress at the end (events in the stream, bytes of the log) when the replay started. */
  readonly total: number;
  /** Every event from sequence 1 to the end as of the start; undecodable messages are counted. */
  events(): AsyncIterable<ReplayItem>;
  /** Messages skipped as undecodable (the projector refuses the same ones). */
  readonly refused: number;
}

/** Node id given to events of logs written before NATS support (no `metadata.nodeId`). */
export const DEFAULT_LOCAL_NODE_ID = 'local';

/**
 * The embedded log in `dbdir`, read-only and without its lock (the service may be running): a
 * torn last record is where the log ends; a damaged record before the end is an error.
 * `node`: the node id of events without one (default `local`).
 */
export async function embeddedLogSource(dbdir: string, options: { node?: string } = {}): Promise<ReplaySource> {
  const path = join(dbdir, LOG_FILE);
  const total = (await stat(path)).size;
  const fallback = options.node ?? DEFAULT_LOCAL_NODE_ID;
  return {
    description: path,
    unit: 'bytes',
    total,
    refused: 0,
    async *events() {
      let damagedAt: number | undefined;
      for await (const { line, startOffset, endOffset } of lines(path, total)) {
        const event = decodeRecord(line);
        if (event === undefined) {
          damagedAt ??= startOffset;
          continue;
        }
        if (damagedAt !== undefined) throw new Error(`${path} is damaged at byte ${damagedAt} (a good record follows)`);
        yield { event, nodeId: eventNodeId(event, fallback), position: endOffset };
      }
    },
  };
}

async function* lines(path: string, end: number): AsyncIterable<{ line: string; startOffset: number; endOffset: number }> {
  if (end === 0) return;
  let carry = Buffer.alloc(0);
  let offset = 0;
  for await (const chunk of createReadStream(path, { end: end - 1 })) {
    let buf = Buffer.concat([carry, chunk as Buffer]);
    let nl: number;
    while ((nl = buf.indexOf(0x0a)) !== -1) {
      const startOffset = offset;
      offset += nl + 1;
      yield { line: buf.subarray(0, nl).toString('utf8'), startOffset, endOffset: offset };
      buf = buf.subarray(nl + 1);
    }
    carry = buf;
  }
  // An unterminated tail is a torn write: the log ends before it.
}

/**
 * The stream `ACTIVATION_EVENTS` from sequence 1 through an ordered consumer (nothing durable is
 * created), up to its last message when the replay started. `node`: only that node's subjects.
 */
export async function jetStreamSource(nc: NatsConnection, options: { node?: string } = {}): Promise<ReplaySource> {
  const filter = options.node === undefined ? ALL_EVENTS_FILTER : nodeEventsFilter(options.node);
  const jsm = await jetstreamManager(nc);
  // The end is the last message under the filter when the replay starts. Not the consumer's pending
  // count: after a failover nats-server 2.9 can report 0 pending one message early.
  const endSeq = (await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: filter }))?.seq ?? 0;
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const total = (await consumer.info(true)).num_pending;
  let refused = 0;
  return {
    description: `${nc.getServer()} ${EVENTS_STREAM} ${filter}`,
    unit: 'events',
    total,
    get refused() {
      return refused;
    },
    async *events() {
      if (endSeq === 0) return;
      const messages = await consumer.consume({ max_messages: 1_000 });
      let position = 0;
      try {
        for await (const m of messages) {
          position++;
          const decoded = decodeForProjection(m.subject, m.data);
          if (decoded.ok) yield { event: decoded.event, nodeId: decoded.nodeId, position };
          else refused++;
          if (m.info.streamSequence >= endSeq) break;
        }
      } finally {
        await messages.close();
      }
    },
  };
}
