/** The NATS bench's human-readable report: latency, stages, throughput and CPU tables. */
import type { LatencySummary, RateSummary } from './latencySummary.ts';
import type { CpuUse } from './natsCpu.ts';
import type { NatsBenchConfig } from './natsConfig.ts';
import type { EventToKvResult } from './natsLatency.ts';
import type { RawRoundTripResult } from './natsRawLatency.ts';
import type { ReplayBenchResult } from './natsReplay.ts';
import { renderTable } from './table.ts';

/** Ours against raw, as printed and saved. */
export interface NatsRatios {
  /** Ours' append→KV over raw's publish→receive (1 = as fast as raw; higher is slower). */
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** Ours' rate over raw's (1 = as fast as raw; lower is slower). */
  readonly outboxVsRawSerialPublish: number;
  readonly outboxVsRawPipelinedPublish: number;
  readonly replayJetStreamVsRawConsume: number;
  readonly replayEmbeddedVsRawConsume: number;
}

/** Issue 16's goals: ours against raw in the same run (and one absolute latency). */
export const NATS_GOALS = {
  /** Outbox catch-up over raw pipelined publish, at least. */
  outboxVsRawPipelinedPublish: 0.5,
  /** Each replay over raw consume, at least. */
  replayVsRawConsume: 0.5,
  /** Event → KV p99 at the offered rate, ms, at most. */
  latencyP99Ms: 20,
} as const;

/** Whether each goal was met in a run. */
export interface NatsGoalsMet {
  readonly outboxCatchUp: boolean;
  readonly replayJetStream: boolean;
  readonly replayEmbedded: boolean;
  readonly latencyP99: boolean;
}

/** Which goals a run met. */
export function natsGoalsMet(ours: EventToKvResult, ratios: NatsRatios): NatsGoalsMet {
  return {
    outboxCatchUp: ratios.outboxVsRawPipelinedPublish >= NATS_GOALS.outboxVsRawPipelinedPublish,
    replayJetStream: ratios.replayJetStreamVsRawConsume >= NATS_GOALS.replayVsRawConsume,
    replayEmbedded: ratios.replayEmbeddedVsRawConsume >= NATS_GOALS.replayVsRawConsume,
    latencyP99: ours.appendToKv.p99Ms <= NATS_GOALS.latencyP99Ms,
  };
}

const mark = (ok: boolean) => (ok ? 'MET' : '*** MISSED ***');

/** The ratios of a run. */
export function natsRatios(ours: EventToKvResult, raw: RawRoundTripResult, replay: ReplayBenchResult): NatsRatios {
  const consume = replay.rawConsume.medianPerSecond;
  return {
    latencyP50: ours.appendToKv.p50Ms / raw.publishToReceive.p50Ms,
    latencyP99: ours.appendToKv.p99Ms / raw.publishToReceive.p99Ms,
    outboxVsRawSerialPublish: replay.outboxCatchUp.perSecond / replay.rawPublishSerial.perSecond,
    outboxVsRawPipelinedPublish: replay.outboxCatchUp.perSecond / replay.rawPublishPipelined.perSecond,
    replayJetStreamVsRawConsume: replay.replayJetStream.medianPerSecond / consume,
    replayEmbeddedVsRawConsume: replay.replayEmbedded.medianPerSecond / consume,
  };
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
const int = (v: number) => Math.round(v).toLocaleString('en-US');
const times = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)}×`;
const pct = (v: number | undefined) => (v === undefined ? 'n/a' : `${Math.round(v * 100)}%`);
const latencyCells = (s: LatencySummary) => [ms(s.p50Ms), ms(s.p90Ms), ms(s.p99Ms), ms(s.maxMs)];
const spread = (r: RateSummary) => (r.rounds.length < 2 ? '—' : `${int(r.minPerSecond)}–${int(r.maxPerSecond)}`);
const cpuLine = (what: string, c: CpuUse) =>
  `  ${what}: bench process ${pct(c.process)} of a core (event loop busy ${pct(c.eventLoop)}), nats-server ${pct(c.natsServer)} of a core`;

function latencySection(config: NatsBenchConfig, ours: EventToKvResult, raw: RawRoundTripResult, ratios: NatsRatios, diskSync: LatencySummary): string[] {
  const header = ['path', 'events', 'achieved ev/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'];
  const rows = [
    ['ours: append() → KV watcher sees the event', int(ours.kvEvents), int(ours.achievedPerSecond), ...latencyCells(ours.appendToKv)],
    ['ours: append due → KV watcher (no coordinated omission)', int(ours.kvEvents), int(ours.achievedPerSecond), ...latencyCells(ours.scheduledToKv)],
    ['raw JetStream: publish() → ordered consumer receives', int(raw.events), int(raw.achievedPerSecond), ...latencyCells(raw.publishToReceive)],
    ['raw JetStream: publish due → consumer receives', int(raw.events), int(raw.achievedPerSecond), ...latencyCells(raw.scheduledToReceive)],
    ['ours / raw', '', '', times(ratios.latencyP50), '', times(ratios.latencyP99), ''],
  ];
  const stages = [
    ['append → durable (group commit + fdatasync)', ...latencyCells(ours.appendToDurable)],
    ['append → in the stream (outside consumer receives)', ...latencyCells(ours.appendToStream)],
    ['in the stream → KV watcher (projector, KV write, watch)', ...latencyCells(ours.streamToKv)],
    ['raw: publish → PubAck', ...latencyCells(raw.publishToAck)],
    ['the disk alone: append + fdatasync of one record (same rate)', ...latencyCells(diskSync)],
  ];
  const p = ours.publisher;
  return [
    `Event → KV latency at ${config.perSecond} events/s offered, ${config.durationMs / 1000} s measured after ${config.warmupMs / 1000} s warm-up ` +
      `(${int(ours.events)} events, ${int(ours.kvEvents)} of them change a key; mean body ${int(ours.bodyBytes.mean)} B, ${ours.bodyBytes.min}–${ours.bodyBytes.max} B)`,
    '',
    ...renderTable(header, rows),
    '',
    'Where ours’ time goes (same events)',
    ...renderTable(['stage', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], stages),
    '',
    `  ours append → KV p99 per second (ms): ${ours.appendToKvBySecond.map((w) => ms(w.p99Ms)).join(' ')}`,
    '  raw has no per-message fsync (nats-server syncs its file store periodically); ours pays one fdatasync per group commit of the outbox',
    `  generator lateness p99: ours ${ms(ours.generatorLate.p99Ms)} ms, raw ${ms(raw.generatorLate.p99Ms)} ms`,
    `  publisher (whole run): ${int(p.publishes)} publishes, mean ${int((p.publishMs * 1000) / Math.max(1, p.publishes))} µs; ` +
      `${int(p.heads)} subject-head lookups, mean ${int((p.headMs * 1000) / Math.max(1, p.heads))} µs`,
    `  goal: ours' p99 ≤ ${NATS_GOALS.latencyP99Ms} ms → ${mark(ours.appendToKv.p99Ms <= NATS_GOALS.latencyP99Ms)} (${ms(ours.appendToKv.p99Ms)} ms; raw ${ms(raw.publishToReceive.p99Ms)} ms)`,
    `  projector (whole run): ${int(ours.projector.messages)} messages, ${int(ours.projector.keysWritten)} keys written, ${ours.projector.retries} retries; ` +
      `KV (${int(ours.kvKeys)} keys) equals an in-memory replay: ${ours.kvMatchesReplay ? 'yes' : 'NO'}`,
    cpuLine('CPU, ours', ours.cpu),
    cpuLine('CPU, raw ', raw.cpu),
  ];
}

function throughputSection(replay: ReplayBenchResult, ratios: NatsRatios): string[] {
  const r = replay;
  const header = ['measurement', 'events', 'events/s', 'rounds min–max', 'vs raw'];
  const rows = [
    ['ours: outbox publisher catch-up (log → stream)', int(r.events), int(r.outboxCatchUp.perSecond), '—',
      `${times(ratios.outboxVsRawSerialPublish)} one-at-a-time, ${times(ratios.outboxVsRawPipelinedPublish)} pipelined`],
    ['raw publish, one at a time (await each PubAck)', int(r.rawPublishSerial.events), int(r.rawPublishSerial.perSecond), '—', ''],
    [`raw publish, pipelined (${r.rawPublishPipelined.inFlight} in flight)`, int(r.events), int(r.rawPublishPipelined.perSecond), '—', ''],
    ['ours: replay from JetStream', int(r.events), int(r.replayJetStream.medianPerSecond), spread(r.replayJetStream), times(ratios.replayJetStreamVsRawConsume)],
    ['ours: replay from the embedded log', int(r.events), int(r.replayEmbedded.medianPerSecond), spread(r.replayEmbedded), times(ratios.replayEmbeddedVsRawConsume)],
    ['raw consume (ordered consumer, JSON.parse only)', int(r.events), int(r.rawConsume.medianPerSecond), spread(r.rawConsume), ''],
    ['diagnostic: projector catch-up on that stream', int(r.projectorCatchUp.events), int(r.projectorCatchUp.perSecond), '—', ''],
  ];
  const c = r.cpuCosts;
  const ceiling = (us: number) => int(1e6 / us);
  const costs = [
    ['TextDecoder + JSON.parse (all the raw consumer does)', c.jsonParseUs.toFixed(2), ceiling(c.jsonParseUs)],
    ['decodeForProjection (parse + schema check): replay from JetStream', c.decodeMessageUs.toFixed(2), ceiling(c.decodeMessageUs)],
    ['decodeRecord (sha256 + parse + schema check): replay from the log', c.decodeRecordUs.toFixed(2), ceiling(c.decodeRecordUs)],
    ['StatusState.apply (both replays)', c.applyUs.toFixed(2), ceiling(c.applyUs)],
  ];
  const s = r.outboxCatchUp.sink;
  return [
    `Throughput, ${int(r.events)} events (mean body ${int(r.bodyBytesMean)} B, ${int(r.keys)} status keys; log written in ${int(r.buildMs)} ms, fsync off)`,
    '',
    ...renderTable(header, rows),
    '',
    `  every replay's digest equals applying the events in memory: ${r.digest}`,
    `  catch-up: ${int(s.publishes)} publishes, mean ${int((s.publishMs * 1000) / Math.max(1, s.publishes))} µs; ` +
      `${int(s.heads)} subject-head lookups, mean ${int((s.headMs * 1000) / Math.max(1, s.heads))} µs; ` +
      `${((s.publishMs + s.headMs) / r.outboxCatchUp.ms).toFixed(1)} of them in flight on average`,
    `  goals: catch-up ≥ ${NATS_GOALS.outboxVsRawPipelinedPublish}× raw pipelined → ${mark(ratios.outboxVsRawPipelinedPublish >= NATS_GOALS.outboxVsRawPipelinedPublish)}; ` +
      `replay ≥ ${NATS_GOALS.replayVsRawConsume}× raw consume: from JetStream → ${mark(ratios.replayJetStreamVsRawConsume >= NATS_GOALS.replayVsRawConsume)}, ` +
      `from the log → ${mark(ratios.replayEmbeddedVsRawConsume >= NATS_GOALS.replayVsRawConsume)}`,
    cpuLine('CPU, catch-up         ', r.outboxCatchUp.cpu),
    cpuLine('CPU, raw one-at-a-time', r.rawPublishSerial.cpu),
    cpuLine('CPU, projector        ', r.projectorCatchUp.cpu),
    '',
    'Diagnostic: CPU per event of each replay step, in memory (no I/O)',
    ...renderTable(['step', 'µs/event', 'ceiling ev/s'], costs),
    `  StatusState.digest() once: ${ms(c.digestMs)} ms`,
  ];
}

/** The whole report. */
export function renderNatsReport(
  config: NatsBenchConfig,
  server: string,
  ours: EventToKvResult,
  raw: RawRoundTripResult,
  replay: ReplayBenchResult,
  ratios: NatsRatios,
  diskSync: LatencySummary,
): string {
  return [`NATS bench — ${server} on 127.0.0.1 (one server for every measurement)`, '', ...latencySection(config, ours, raw, ratios, diskSync), '', ...throughputSection(replay, ratios)].join('\n');
}
