/**
 * NATS bench (issue): event-to-KV latency p50/p99 at a steady 500 events/s, and replay throughput
 * in events/s for 100,000 events, each beside the raw JetStream publish/consume rate of the same
 * nats-server measured in the same run.
 *
 * 1. Latency: a real EmbeddedEventLog (fsync on) as the outbox, the outbox publisher and the
 *    projector wired as the service wires them; workload events appended open-loop at the rate;
 *    each timed from its append call until a KV watcher sees its key's `lastSeq` reach it. Beside
 *    it: the same messages published at the same rate to a raw stream, timed to an ordered
 *    consumer; and, as the floor the outbox's durability sets, the disk alone appending and
 *    fdatasync-ing one record at a time at the same rate.
 * 2. Throughput: a 100,000-event log (fsync off) drained by the outbox publisher into a fresh
 *    stream (catch-up rate), then `replay` from JetStream and from the log (digests asserted equal
 *    to the in-memory application of the same events), beside raw publish (one at a time, and
 *    pipelined) and a raw ordered-consumer read doing only JSON.parse.
 *
 * Goals (issue 16, printed MET or MISSED and saved as `goalsMet`): catch-up ≥ 0.5× raw pipelined
 * publish, each replay ≥ 0.5× raw consume, event → KV p99 ≤ 20 ms.
 *
 * Env: see bench/natsConfig.ts. Prints tables; saves bench/results/nats-<timestamp>.json and
 * nats-latest.json. Exits non-zero when the run fails (an event lost, a digest mismatch, a
 * refused event, a publisher failure).
 */
import './silence.ts';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { natsServerBinary, startNatsServer } from '../devnet/nats/natsServer.ts';
import { findNatsServerPid } from './natsCpu.ts';
import { latencyEventCounts, readNatsBenchConfig } from './natsConfig.ts';
import { measureDiskSync } from './natsDiskSync.ts';
import { measureEventToKv } from './natsLatency.ts';
import { measureRawRoundTrip } from './natsRawLatency.ts';
import { measureReplay } from './natsReplay.ts';
import { natsGoalsMet, natsRatios, renderNatsReport } from './natsReport.ts';
import { connectLikeService } from './natsSetup.ts';
import { environment, saveResults } from './results.ts';

function serverVersion(): string {
  try {
    return execFileSync(natsServerBinary(), ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'nats-server (version unknown)';
  }
}

const config = readNatsBenchConfig();
const startedAt = new Date();
const began = performance.now();
const counts = latencyEventCounts(config);
const server = await startNatsServer();
const dir = await mkdtemp(join(tmpdir(), 'nats-bench-'));
try {
  const serverPid = findNatsServerPid(server.port);
  const progress = (text: string) => process.stderr.write(`[nats bench ${((performance.now() - began) / 1000).toFixed(0)} s] ${text}\n`);

  progress(`event → KV at ${config.perSecond}/s for ${(counts.warmup + counts.measured) / config.perSecond} s`);
  const { result: ours, messages } = await measureEventToKv({
    url: server.url,
    dir: join(dir, 'latency'),
    perSecond: config.perSecond,
    warmupEvents: counts.warmup,
    events: counts.measured,
    serverPid,
  });
  if (!ours.kvMatchesReplay) throw new Error('the KV does not match an in-memory replay of the same events');

  progress('raw JetStream round trip at the same rate');
  const raw = await measureRawRoundTrip(server.url, messages, config.perSecond, counts.warmup, serverPid);

  progress('the disk alone: append + fdatasync at the same rate');
  const diskSync = await measureDiskSync(dir, config.perSecond, Math.max(1, Math.round((config.durationMs * config.perSecond) / 2000)));

  progress(`throughput with ${config.replayEvents.toLocaleString('en-US')} events`);
  const nc = await connectLikeService(server.url, 'bench replay');
  const replay = await measureReplay({
    nc,
    dir: join(dir, 'replay'),
    events: config.replayEvents,
    rounds: config.rounds,
    projectorWindowMs: config.projectorWindowMs,
    rawInFlight: config.rawInFlight,
    rawSerialEvents: config.rawSerialEvents,
    serverPid,
  }).finally(() => nc.close());

  const ratios = natsRatios(ours, raw, replay);
  const version = serverVersion();
  process.stdout.write(`${renderNatsReport(config, version, ours, raw, replay, ratios, diskSync)}\n`);
  const totalMs = performance.now() - began;
  const paths = await saveResults(
    { startedAt: startedAt.toISOString(), environment: { ...environment(), natsServer: version, ...config }, totalMs, latency: { ours, raw, diskSync }, throughput: replay, ratios, goalsMet: natsGoalsMet(ours, ratios) },
    startedAt,
    { name: 'nats', latest: 'nats-latest.json' },
  );
  process.stdout.write(`\nTotal ${(totalMs / 1000).toFixed(1)} s. Saved ${paths.map((p) => relative(process.cwd(), p)).join(', ')}\n`);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
