/**
 * Event-to-KV latency of the real pipeline at a steady rate: a real EmbeddedEventLog (fsync on)
 * as the outbox, the outbox publisher and the projector wired as the service wires them
 * (infra/nats/natsLink.ts: one connection, this node's durable and filter), and an outside
 * client on its own connection watching the KV bucket and the events stream.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import { EmbeddedEventLog } from '../events/log/embeddedEventLog.ts';
import { NODE_STREAM } from '../events/log/eventLog.ts';
import { encodeEventBody } from '../events/jetstream/eventMessage.ts';
import { startOutboxPublisherOn } from '../events/outbox/outboxPublisher.ts';
import { nodeEventsFilter, startProjector, type ProjectorStats } from '../events/projector/projector.ts';
import { openStatusKv, snapshotStatusKv } from '../events/projector/statusKv.ts';
import { encodeToken, eventSubject } from '../events/jetstream/subjects.ts';
import { StatusState, statusDigest } from '../events/projections/statusState.ts';
import type { StoredEvent } from '../spec/events.ts';
import { summarizeLatency, type LatencySummary } from './latencySummary.ts';
import { startCpuMeter, type CpuUse } from './natsCpu.ts';
import { countingJetStreamSink, type SinkCounters } from './natsCountingSink.ts';
import { untilSighted, watchKvSightings, watchStreamSightings } from './natsObservers.ts';
import { paced } from './natsPacer.ts';
import { connectLikeService, freshEventsStream } from './natsSetup.ts';
import { ActivationWorkload } from './natsWorkload.ts';

/** Node id the bench's events are written under. */
export const BENCH_NODE_ID = 'bench-node';

/** One message as the publisher sent it (for the raw baseline: same subjects, same bytes). */
export interface SentMessage {
  readonly subject: string;
  readonly body: string;
}

/** Parameters of {@link measureEventToKv}. */
export interface EventToKvOptions {
  readonly url: string;
  /** Directory of the outbox (a fresh one). */
  readonly dir: string;
  readonly perSecond: number;
  /** Events appended first at the same rate and left out of the statistics. */
  readonly warmupEvents: number;
  readonly events: number;
  /** nats-server's pid, to report its CPU use. */
  readonly serverPid?: number;
}

/** What {@link measureEventToKv} measured (measured phase only). */
export interface EventToKvResult {
  readonly events: number;
  /** Events of the measured phase that change a status key (the others cannot be seen in the KV). */
  readonly kvEvents: number;
  readonly offeredPerSecond: number;
  readonly achievedPerSecond: number;
  /** How late the generator made its append calls (event-loop delay). */
  readonly generatorLate: LatencySummary;
  /** From just before `append()` until the KV watcher sees the key's `lastSeq` reach the event. */
  readonly appendToKv: LatencySummary;
  /** {@link appendToKv} per second of the measured phase (by append time): bursts and drift show here. */
  readonly appendToKvBySecond: readonly { readonly second: number; readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number }[];
  /** The same, from the time the append was due (includes generator delay: no coordinated omission). */
  readonly scheduledToKv: LatencySummary;
  /** Stages: append until durable (group commit + fdatasync). */
  readonly appendToDurable: LatencySummary;
  /** Append until an outside consumer on the events stream receives it. */
  readonly appendToStream: LatencySummary;
  /** Received from the stream by the outside consumer until seen in the KV. */
  readonly streamToKv: LatencySummary;
  readonly bodyBytes: { readonly mean: number; readonly min: number; readonly max: number };
  readonly publisher: SinkCounters;
  readonly projector: ProjectorStats;
  /** Status keys at the end, and whether the KV's digest equals the digest of applying the same events in memory. */
  readonly kvKeys: number;
  readonly kvMatchesReplay: boolean;
  /** CPU use while the measured events were being appended. */
  readonly cpu: CpuUse;
}

interface Sample {
  readonly sentAt: number;
  readonly scheduledAt: number;
  readonly measured: boolean;
  durableAt?: number;
  changesKv?: boolean;
}

/**
 * Appends `warmupEvents + events` workload events at `perSecond` (open loop) after a
 * SessionStarted, and times each from its append call to its sighting in the KV. Throws if an
 * event never shows up, the projector refused one, the publisher failed, or the KV ends up
 * different from an in-memory replay of the same events.
 */
export async function measureEventToKv(options: EventToKvOptions): Promise<{ result: EventToKvResult; messages: SentMessage[] }> {
  const nodeId = BENCH_NODE_ID;
  const svc = await connectLikeService(options.url, `coin-activation ${nodeId}`);
  const observer = await connectLikeService(options.url, 'bench observer');
  await freshEventsStream(await jetstreamManager(svc));
  const log = await EmbeddedEventLog.open({ dir: options.dir, sessionId: randomUUID(), nodeId, fsync: true });
  const { sink, counters } = countingJetStreamSink(svc);
  const publisher = await startOutboxPublisherOn(sink, { outbox: log, nodeId, markFile: join(options.dir, 'published.seq') });
  const projector = await startProjector({ nc: svc, durableName: `activation-projector-${nodeId}`, filter: nodeEventsFilter(nodeId) });
  const kv = await openStatusKv(observer);
  const kvSeen = await watchKvSightings(kv, `${encodeToken(nodeId)}.>`);
  const streamSeen = await watchStreamSightings(observer, nodeEventsFilter(nodeId));

  const shadow = new StatusState();
  const samples = new Map<number, Sample>();
  const messages: SentMessage[] = [];
  const failures: unknown[] = [];
  const stored = (records: StoredEvent[]) => {
    const t = performance.now();
    for (const e of records) {
      const sample = samples.get(e.metadata.seq);
      if (sample !== undefined) {
        sample.durableAt = t;
        sample.changesKv = shadow.apply(e, nodeId) > 0;
      }
      messages.push({ subject: eventSubject(nodeId, e.metadata.stream), body: encodeEventBody({ ...e, metadata: { ...e.metadata, nodeId } }) });
    }
  };

  try {
    // The session start (no coin keys yet: no KV write), then a pipeline known to be flowing.
    const [session] = await log.append(NODE_STREAM, [{ type: 'SessionStarted', data: { sessionId: log.sessionId, version: '0.1.0', derivationMethod: 'Iguana' } }]);
    shadow.apply(session!, nodeId);
    await untilSighted(streamSeen, [session!.metadata.seq], 10_000, 'session start');
    await projector.whenCaughtUp();

    const workload = new ActivationWorkload(1);
    const total = options.warmupEvents + options.events;
    const pending: Promise<void>[] = [];
    let meter: ReturnType<typeof startCpuMeter> | undefined;
    const run = await paced(total, options.perSecond, (i, scheduledAt) => {
      if (i === options.warmupEvents) meter = startCpuMeter(options.serverPid);
      const { stream, event } = workload.next();
      const sentAt = performance.now();
      const appended = log.append(stream, [event]);
      samples.set(log.lastSeq, { sentAt, scheduledAt, measured: i >= options.warmupEvents });
      pending.push(appended.then(stored, (e: unknown) => void failures.push(e)));
    });
    const cpu = meter!.read();
    await Promise.all(pending);
    if (failures.length > 0) throw new Error(`${failures.length} appends failed: ${String(failures[0])}`);

    const kvSeqs = [...samples].filter(([, s]) => s.changesKv).map(([seq]) => seq);
    await untilSighted(kvSeen, kvSeqs, 60_000, 'event → KV');
    await untilSighted(streamSeen, samples.keys(), 10_000, 'event → stream');
    await projector.whenCaughtUp();
    const failure = publisher.failure();
    if (failure !== undefined) throw new Error(`the outbox publisher failed: ${failure.message}`);
    const projectorStats = projector.stats();
    if (projectorStats.refused > 0) throw new Error(`the projector refused ${projectorStats.refused} events (schema or subject)`);
    if (kvSeen.unreadable() + streamSeen.unreadable() > 0) throw new Error('unreadable KV values or stream messages');

    const snapshot = await snapshotStatusKv(kv, `${encodeToken(nodeId)}.>`);
    const measured = [...samples].filter(([, s]) => s.measured);
    const measuredKv = measured.filter(([, s]) => s.changesKv);
    const since = (seq: number, from: number, seen: Map<number, number>) => seen.get(seq)! - from;
    const bySecond = new Map<number, number[]>();
    const phaseStart = measured[0]![1].sentAt;
    for (const [seq, s] of measuredKv) {
      const second = Math.floor((s.sentAt - phaseStart) / 1000);
      let values = bySecond.get(second);
      if (values === undefined) bySecond.set(second, (values = []));
      values.push(since(seq, s.sentAt, kvSeen.at));
    }
    const sizes = messages.map((m) => Buffer.byteLength(m.body));
    return {
      messages,
      result: {
        events: measured.length,
        kvEvents: measuredKv.length,
        offeredPerSecond: options.perSecond,
        achievedPerSecond: run.achievedPerSecond,
        generatorLate: summarizeLatency(run.lateMs.subarray(options.warmupEvents)),
        appendToKv: summarizeLatency(measuredKv.map(([seq, s]) => since(seq, s.sentAt, kvSeen.at))),
        appendToKvBySecond: [...bySecond].map(([second, values]) => {
          const { p50Ms, p99Ms, maxMs } = summarizeLatency(values);
          return { second, p50Ms, p99Ms, maxMs };
        }),
        scheduledToKv: summarizeLatency(measuredKv.map(([seq, s]) => since(seq, s.scheduledAt, kvSeen.at))),
        appendToDurable: summarizeLatency(measured.map(([, s]) => s.durableAt! - s.sentAt)),
        appendToStream: summarizeLatency(measured.map(([seq, s]) => since(seq, s.sentAt, streamSeen.at))),
        streamToKv: summarizeLatency(measuredKv.map(([seq]) => kvSeen.at.get(seq)! - streamSeen.at.get(seq)!)),
        bodyBytes: { mean: sizes.reduce((a, b) => a + b, 0) / sizes.length, min: Math.min(...sizes), max: Math.max(...sizes) },
        publisher: { ...counters },
        projector: projectorStats,
        kvKeys: snapshot.size,
        kvMatchesReplay: statusDigest(snapshot) === shadow.digest(),
        cpu,
      },
    };
  } finally {
    await kvSeen.stop().catch(() => undefined);
    await streamSeen.stop().catch(() => undefined);
    await projector.stop().catch(() => undefined);
    await publisher.stop().catch(() => undefined);
    await log.close().catch(() => undefined);
    await svc.close().catch(() => undefined);
    await observer.close().catch(() => undefined);
  }
}
