/**
 * Part 2 of the NATS bench: N events through the outbox publisher into a fresh stream (catch-up
 * rate), then `replay` from JetStream and from the embedded log, each beside the raw JetStream
 * publish and consume rates of the same messages on the same server.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { startOutboxPublisherOn } from '../events/outbox/outboxPublisher.ts';
import { ALL_EVENTS_FILTER, nodeEventsFilter, startProjector } from '../events/projector/projector.ts';
import { EVENTS_STREAM } from '../events/jetstream/subjects.ts';
import { embeddedLogSource, jetStreamSource, replay } from '../events/replay/replay.ts';
import { perSecond, summarizeRates, type RateSummary } from './latencySummary.ts';
import { startCpuMeter, type CpuUse } from './natsCpu.ts';
import { countingJetStreamSink, type SinkCounters } from './natsCountingSink.ts';
import { BENCH_NODE_ID } from './natsLatency.ts';
import { rawConsume, rawPublish } from './natsRawThroughput.ts';
import { measureReplayCpu, type ReplayCpuCosts } from './natsReplayCpu.ts';
import { buildReplayLog, type BuiltLog } from './natsReplayLog.ts';
import { freshEventsStream } from './natsSetup.ts';

/** Parameters of {@link measureReplay}. */
export interface ReplayBenchOptions {
  readonly nc: NatsConnection;
  /** A fresh directory for the log. */
  readonly dir: string;
  readonly events: number;
  /** Rounds of each read (alternating order); the median is reported. */
  readonly rounds: number;
  /** Window for the projector's catch-up rate (diagnostic), ms. */
  readonly projectorWindowMs: number;
  /** Publishes in flight for the pipelined raw publish. */
  readonly rawInFlight: number;
  /** Messages (the first ones) of the one-at-a-time raw publish; at most `events`. */
  readonly rawSerialEvents: number;
  /** nats-server's pid, to report its CPU use. */
  readonly serverPid?: number;
}

/** What {@link measureReplay} measured. */
export interface ReplayBenchResult {
  readonly events: number;
  readonly keys: number;
  readonly buildMs: number;
  readonly bodyBytesMean: number;
  /** Outbox → stream: the real publisher draining a log it has never published. */
  readonly outboxCatchUp: { readonly ms: number; readonly perSecond: number; readonly sink: SinkCounters; readonly cpu: CpuUse };
  readonly rawPublishSerial: { readonly events: number; readonly ms: number; readonly perSecond: number; readonly cpu: CpuUse };
  readonly rawPublishPipelined: { readonly ms: number; readonly perSecond: number; readonly inFlight: number; readonly cpu: CpuUse };
  readonly replayJetStream: RateSummary;
  readonly replayEmbedded: RateSummary;
  readonly rawConsume: RateSummary;
  /** Every replay's digest equals the in-memory digest of the same events. */
  readonly digest: string;
  /** Diagnostic: the real projector catching up on the stream, for a fixed window. */
  readonly projectorCatchUp: { readonly events: number; readonly ms: number; readonly perSecond: number; readonly cpu: CpuUse };
  /** Diagnostic: CPU per event of each replay step, in memory. */
  readonly cpuCosts: ReplayCpuCosts;
}

type ReadKind = 'rawConsume' | 'replayJetStream' | 'replayEmbedded';

/** Runs part 2; throws if anything is lost or a replay's digest differs. */
export async function measureReplay(options: ReplayBenchOptions): Promise<ReplayBenchResult> {
  const { nc, dir } = options;
  const jsm = await jetstreamManager(nc);
  await freshEventsStream(jsm);
  const built = await buildReplayLog(dir, BENCH_NODE_ID, options.events);
  let log: BuiltLog['log'] | undefined = built.log;
  try {
    const outboxCatchUp = await publishOutbox(nc, built, dir, options.serverPid);
    const stored = (await jsm.streams.info(EVENTS_STREAM)).state.messages;
    if (stored !== built.events) throw new Error(`the events stream holds ${stored} messages after catch-up, expected ${built.events}`);
    await log.close();
    log = undefined;

    const timedPublish = async (messages: typeof built.messages, inFlight: number) => {
      const meter = startCpuMeter(options.serverPid);
      const { events, ms } = await rawPublish(nc, messages, inFlight);
      return { events, ms, perSecond: perSecond(events, ms), cpu: meter.read() };
    };
    const serial = await timedPublish(built.messages.slice(0, Math.min(options.rawSerialEvents, built.events)), 1);
    const pipelined = await timedPublish(built.messages, options.rawInFlight);

    const rates: Record<ReadKind, number[]> = { rawConsume: [], replayJetStream: [], replayEmbedded: [] };
    const order: ReadKind[] = ['rawConsume', 'replayJetStream', 'replayEmbedded'];
    for (let round = 0; round < options.rounds; round++) {
      for (const kind of round % 2 === 0 ? order : [...order].reverse()) {
        rates[kind].push(await read(kind, nc, dir, built));
      }
    }
    const projectorCatchUp = await projectorRate(nc, options.projectorWindowMs, options.serverPid);
    return {
      events: built.events,
      keys: built.keys,
      buildMs: built.buildMs,
      bodyBytesMean: built.messages.reduce((a, m) => a + Buffer.byteLength(m.body), 0) / built.events,
      outboxCatchUp,
      rawPublishSerial: serial,
      rawPublishPipelined: { ms: pipelined.ms, perSecond: pipelined.perSecond, inFlight: options.rawInFlight, cpu: pipelined.cpu },
      replayJetStream: summarizeRates(rates.replayJetStream),
      replayEmbedded: summarizeRates(rates.replayEmbedded),
      rawConsume: summarizeRates(rates.rawConsume),
      digest: built.expectedDigest,
      projectorCatchUp,
      cpuCosts: measureReplayCpu(built.messages),
    };
  } finally {
    await log?.close();
  }
}

async function publishOutbox(nc: NatsConnection, built: BuiltLog, dir: string, serverPid?: number): Promise<ReplayBenchResult['outboxCatchUp']> {
  const { sink, counters } = countingJetStreamSink(nc);
  const meter = startCpuMeter(serverPid);
  const started = performance.now();
  const publisher = await startOutboxPublisherOn(sink, { outbox: built.log, nodeId: BENCH_NODE_ID, markFile: join(dir, 'published.seq') });
  try {
    await publisher.whenCaughtUp();
    const ms = performance.now() - started;
    return { ms, perSecond: perSecond(built.events, ms), sink: { ...counters }, cpu: meter.read() };
  } finally {
    await publisher.stop();
  }
}

/** One timed read of all events; returns events/s. Replays must reproduce the expected digest. */
async function read(kind: ReadKind, nc: NatsConnection, dir: string, built: BuiltLog): Promise<number> {
  const started = performance.now();
  if (kind === 'rawConsume') {
    const { events } = await rawConsume(nc, EVENTS_STREAM, ALL_EVENTS_FILTER);
    if (events !== built.events) throw new Error(`raw consume read ${events} of ${built.events} messages`);
    return perSecond(events, performance.now() - started);
  }
  const source = kind === 'replayJetStream' ? await jetStreamSource(nc) : await embeddedLogSource(dir);
  const result = await replay(source);
  const ms = performance.now() - started;
  if (result.events !== built.events || result.refused !== 0) {
    throw new Error(`${kind}: replayed ${result.events} events (${result.refused} refused), expected ${built.events}`);
  }
  if (result.digest !== built.expectedDigest) throw new Error(`${kind}: digest ${result.digest} differs from the events' ${built.expectedDigest}`);
  return perSecond(result.events, ms);
}

/** The real projector on the stream for `windowMs` (its durable starts at sequence 1). */
async function projectorRate(nc: NatsConnection, windowMs: number, serverPid?: number): Promise<ReplayBenchResult['projectorCatchUp']> {
  const projector = await startProjector({ nc, durableName: 'bench-catch-up', filter: nodeEventsFilter(BENCH_NODE_ID) });
  const meter = startCpuMeter(serverPid);
  const started = performance.now();
  try {
    await new Promise((r) => setTimeout(r, windowMs));
    const events = projector.stats().messages;
    const ms = performance.now() - started;
    return { events, ms, perSecond: perSecond(events, ms), cpu: meter.read() };
  } finally {
    await projector.stop();
  }
}
