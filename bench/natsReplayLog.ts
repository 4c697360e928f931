/**
 * The replay bench's input: a real embedded log of N workload events (fsync off, appends queued
 * in bulk so group commit writes them quickly), with what the replays must reproduce.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { EmbeddedEventLog } from '../events/log/embeddedEventLog.ts';
import { NODE_STREAM } from '../events/log/eventLog.ts';
import { encodeEventBody } from '../events/jetstream/eventMessage.ts';
import { eventSubject } from '../events/jetstream/subjects.ts';
import { StatusState } from '../events/projections/statusState.ts';
import type { DomainEvent, StoredEvent } from '../spec/events.ts';
import type { SentMessage } from './natsLatency.ts';
import { ActivationWorkload } from './natsWorkload.ts';

/** The written log (still open), and the expected outcome of replaying it. */
export interface BuiltLog {
  readonly log: EmbeddedEventLog;
  readonly events: number;
  readonly buildMs: number;
  /** Digest of applying every event in memory, in order (what both replays must produce). */
  readonly expectedDigest: string;
  readonly keys: number;
  /** Every event as the publisher sends it (subject and body), in log order. */
  readonly messages: SentMessage[];
}

const CHUNK = 5_000;

/** Writes a SessionStarted and `events − 1` workload events to a new log in `dir` under `nodeId`. */
export async function buildReplayLog(dir: string, nodeId: string, events: number): Promise<BuiltLog> {
  const started = performance.now();
  const log = await EmbeddedEventLog.open({ dir, sessionId: randomUUID(), nodeId, fsync: false });
  const workload = new ActivationWorkload(2);
  const shadow = new StatusState();
  const messages: SentMessage[] = [];
  const take = (records: StoredEvent[]) => {
    for (const e of records) {
      shadow.apply(e, nodeId);
      messages.push({ subject: eventSubject(nodeId, e.metadata.stream), body: encodeEventBody({ ...e, metadata: { ...e.metadata, nodeId } }) });
    }
  };
  const session: DomainEvent = { type: 'SessionStarted', data: { sessionId: log.sessionId, version: '0.1.0', derivationMethod: 'Iguana' } };
  take(await log.append(NODE_STREAM, [session]));
  for (let done = 1; done < events; ) {
    const n = Math.min(CHUNK, events - done);
    const appends: Promise<StoredEvent[]>[] = [];
    for (let i = 0; i < n; i++) {
      const { stream, event } = workload.next();
      appends.push(log.append(stream, [event]));
    }
    for (const records of await Promise.all(appends)) take(records);
    done += n;
  }
  if (log.lastSeq !== events) throw new Error(`log holds ${log.lastSeq} events, expected ${events}`);
  return { log, events, buildMs: performance.now() - started, expectedDigest: shadow.digest(), keys: shadow.size, messages };
}
