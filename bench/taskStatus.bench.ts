/**
 * Status-poll throughput and latency: 50 concurrent keep-alive clients polling
 * `task::enable_eth::status` (forget_if_finished false) on random ids among 1,000 live tasks of
 * the real service, against a bare `node:http` JSON echo server answering the same bytes, measured
 * in the same run. Target (issue): at least 0.8 of the bare server, for throughput and for p99.
 *
 * The clients run in a child process (their own core); both servers run in this one. Rounds
 * alternate the order (bare first, then ours first) so drift does not favour either.
 *
 * Env: BENCH_STATUS_TASKS (1000), BENCH_STATUS_CLIENTS (50), BENCH_STATUS_WARMUP_MS (1000),
 * BENCH_STATUS_DURATION_MS (3000), BENCH_STATUS_ROUNDS (4: the servers alternate, bare-ours-ours-bare…, so a
 * machine whose speed drifts, as shared CI machines do, biases neither), BENCH_STATUS_CLIENT (`raw`, the
 * default: hand-written HTTP/1.1 on kept-alive sockets, light enough that the servers, not the load
 * generator, are the bottleneck on 2 cores; `http`: node:http with a keep-alive Agent, which
 * saturates its own core before the bare server does here).
 *
 * Besides req/s and latency the table shows each side's CPU and the server's CPU time per request:
 * when the client side is near 100% the bare server's req/s is a floor (client-bound), and the
 * CPU-per-request ratio is the better estimate of what the service costs relative to bare. Prints a table, saves JSON to
 * bench/results/task-status-<timestamp>.json and task-status-latest.json. Exits non-zero only when
 * the run fails (setup, an unexpected answer, tasks no longer live); a missed target prints MISSED.
 */
import './silence.ts';
import { performance } from 'node:perf_hooks';
import { relative } from 'node:path';
import { integerFrom } from './benchConfig.ts';
import { environment, saveResults } from './results.ts';
import { percentile } from './stats.ts';
import { renderTable } from './table.ts';
import type { ClientTransport, LoadResult } from './statusLoad.ts';
import { startLoadGenerator } from './statusLoadClient.ts';
import { BENCH_PASSWORD, LIVE_STATUS, assertAllLive, sampleAnswers, startBareEchoServer, startLiveTaskService } from './statusServers.ts';

/** The target: ours / bare at least this, for throughput and p99. */
export const TARGET_RATIO = 0.8;

interface Config {
  readonly tasks: number;
  readonly clients: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly rounds: number;
  readonly transport: ClientTransport;
}

function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const transport = env.BENCH_STATUS_CLIENT ?? 'raw';
  if (transport !== 'http' && transport !== 'raw') throw new Error(`BENCH_STATUS_CLIENT must be http or raw, got ${JSON.stringify(transport)}`);
  return {
    transport,
    tasks: integerFrom(env, 'BENCH_STATUS_TASKS', 1) ?? 1000,
    clients: integerFrom(env, 'BENCH_STATUS_CLIENTS', 1) ?? 50,
    warmupMs: integerFrom(env, 'BENCH_STATUS_WARMUP_MS', 0) ?? 1000,
    durationMs: integerFrom(env, 'BENCH_STATUS_DURATION_MS', 100) ?? 3000,
    rounds: integerFrom(env, 'BENCH_STATUS_ROUNDS', 1) ?? 4,
  };
}

type Target = 'bare' | 'ours';

interface Measured extends LoadResult {
  readonly target: Target;
  readonly round: number;
  /** CPU this (server) process used during the run (warm-up included), as a fraction of one core. */
  readonly serverCpu: number;
  /** This process's CPU time over the run divided by every request answered in it, µs. */
  readonly serverCpuUsPerRequest: number;
}

interface TargetSummary {
  readonly requests: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  /** Per round, to show the spread. */
  readonly reqPerSecByRound: number[];
  readonly p99MsByRound: number[];
  readonly serverCpu: number[];
  readonly clientCpu: number[];
  /** Server CPU µs per request, all rounds together. */
  readonly serverCpuUsPerRequest: number;
}

function summarizeTarget(runs: readonly Measured[]): TargetSummary {
  const latencies = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const elapsed = runs.reduce((n, r) => n + r.elapsedMs, 0);
  return {
    requests,
    reqPerSec: (requests / elapsed) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1)!,
    meanMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    reqPerSecByRound: runs.map((r) => (r.requests / r.elapsedMs) * 1000),
    p99MsByRound: runs.map((r) => percentile(r.latenciesMs, 99)),
    serverCpu: runs.map((r) => r.serverCpu),
    clientCpu: runs.map((r) => r.clientCpu),
    serverCpuUsPerRequest:
      runs.reduce((n, r) => n + r.serverCpuUsPerRequest * r.totalRequests, 0) / runs.reduce((n, r) => n + r.totalRequests, 0),
  };
}

const pct = (values: readonly number[]) => values.map((v) => `${Math.round(v * 100)}%`).join(' / ');

function render(config: Config, bare: TargetSummary, ours: TargetSummary, ratios: Ratios, bytes: { request: number; response: number }): string {
  const row = (name: string, s: TargetSummary) => [
    name,
    s.reqPerSec.toFixed(0),
    s.reqPerSecByRound.map((v) => v.toFixed(0)).join(' / '),
    s.p50Ms.toFixed(2),
    s.p99Ms.toFixed(2),
    s.p99MsByRound.map((v) => v.toFixed(2)).join(' / '),
    s.maxMs.toFixed(1),
    pct(s.serverCpu),
    pct(s.clientCpu),
    s.serverCpuUsPerRequest.toFixed(0),
  ];
  const mark = (ok: boolean) => (ok ? 'MET' : '*** MISSED ***');
  const bound = clientBound(bare) ? ' — bare run client-bound: an upper bound, not conclusive' : '';
  return [
    `task::enable_eth::status polling — ${config.clients} keep-alive clients (${config.transport === 'http' ? 'node:http Agent' : 'raw sockets'}), ${config.tasks} live tasks, ${config.rounds} × (${config.warmupMs} ms warm-up + ${config.durationMs} ms) per server`,
    `request ${bytes.request} B, answer ${bytes.response} B (both servers)`,
    '',
    ...renderTable(
      ['server', 'req/s', 'req/s by round', 'p50 ms', 'p99 ms', 'p99 ms by round', 'max ms', 'server CPU', 'client CPU', 'server CPU µs/req'],
      [row('bare node:http echo', bare), row('coin-activation service', ours)],
    ),
    '',
    `Throughput ratio ours/bare:          ${ratios.throughput.toFixed(2)} → ${mark(ratios.throughput >= TARGET_RATIO)} (target ≥ ${TARGET_RATIO})${bound}`,
    `p99 ratio bare/ours:                 ${ratios.p99.toFixed(2)} → ${mark(ratios.p99 >= TARGET_RATIO)} (target ≥ ${TARGET_RATIO}, i.e. ours' p99 ≤ ${(1 / TARGET_RATIO).toFixed(2)} × bare)${bound}`,
    `Server CPU per request, bare/ours:   ${ratios.cpuPerRequest.toFixed(2)} → ${mark(ratios.cpuPerRequest >= TARGET_RATIO)} (capacity ratio; independent of the load generator)`,
    `(p50 ratio bare/ours: ${ratios.p50.toFixed(2)})`,
    ...(clientBound(bare)
      ? [
          `Note: the load generator used ${pct(bare.clientCpu)} of its core against the bare server, which used ${pct(bare.serverCpu)} of its own:`,
          `the bare run measured the client, so the bare req/s is a floor and the two ratios above are upper bounds. Trust the`,
          `CPU-per-request ratio, or run with BENCH_STATUS_CLIENT=raw (a cheaper client) on a machine with few cores.`,
        ]
      : []),
  ].join('\n');
}

/** The load generator, not the bare server, was saturated in some bare round. */
function clientBound(bare: TargetSummary): boolean {
  return bare.clientCpu.some((c, i) => c >= 0.9 && bare.serverCpu[i]! < 0.9);
}

interface Ratios {
  readonly throughput: number;
  readonly p99: number;
  readonly p50: number;
  /** Bare's server CPU per request / ours (≥ 1 would mean ours is cheaper). */
  readonly cpuPerRequest: number;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const config = readConfig();
  process.stdout.write(`Starting the service with ${config.tasks} live tasks, the bare server and the load generator…\n`);
  const live = await startLiveTaskService(config.tasks);
  const bareServer = await startBareEchoServer();
  const load = await startLoadGenerator();
  try {
    process.stdout.write(`  ${config.tasks} live tasks in ${live.setupMs.toFixed(0)} ms\n`);
    const sample = await sampleAnswers(live.url, bareServer.url, live.taskIds[0]!);
    const parsed = JSON.parse(sample.service);
    if (JSON.stringify(parsed.result) !== JSON.stringify(LIVE_STATUS)) throw new Error(`unexpected live status: ${sample.service}`);
    if (Buffer.byteLength(sample.service) !== Buffer.byteLength(sample.bare)) {
      throw new Error(`answers differ in size: service ${sample.service} vs bare ${sample.bare}`);
    }

    const runs: Measured[] = [];
    for (let round = 1; round <= config.rounds; round++) {
      const order: Target[] = round % 2 === 1 ? ['bare', 'ours'] : ['ours', 'bare'];
      for (const target of order) {
        const cpu0 = process.cpuUsage();
        const wall0 = performance.now();
        const result = await load.run({
          url: target === 'bare' ? bareServer.url : live.url,
          password: BENCH_PASSWORD,
          taskIds: live.taskIds,
          clients: config.clients,
          warmupMs: config.warmupMs,
          durationMs: config.durationMs,
          expect: '"WaitingForHardwareToConnect"',
          transport: config.transport,
        });
        const cpu = process.cpuUsage(cpu0);
        const cpuMicros = cpu.user + cpu.system;
        const serverCpu = cpuMicros / 1000 / (performance.now() - wall0);
        if (result.errors > 0) throw new Error(`${target}: ${result.errors} unexpected answers, first: ${result.firstError}`);
        runs.push({ ...result, target, round, serverCpu, serverCpuUsPerRequest: cpuMicros / result.totalRequests });
        process.stdout.write(`  round ${round} ${target}: ${((result.requests / result.elapsedMs) * 1000).toFixed(0)} req/s, p99 ${percentile(result.latenciesMs, 99).toFixed(2)} ms\n`);
      }
    }
    await assertAllLive(live.url, live.taskIds);

    const bare = summarizeTarget(runs.filter((r) => r.target === 'bare'));
    const ours = summarizeTarget(runs.filter((r) => r.target === 'ours'));
    const ratios: Ratios = {
      throughput: ours.reqPerSec / bare.reqPerSec,
      p99: bare.p99Ms / ours.p99Ms,
      p50: bare.p50Ms / ours.p50Ms,
      cpuPerRequest: bare.serverCpuUsPerRequest / ours.serverCpuUsPerRequest,
    };
    const bytes = { request: runs[0]!.requestBytes, response: runs[0]!.responseBytes };
    const totalMs = performance.now() - t0;
    process.stdout.write(`\n${render(config, bare, ours, ratios, bytes)}\n\nTotal bench time ${(totalMs / 1000).toFixed(1)} s\n`);

    const paths = await saveResults(
      {
        startedAt: startedAt.toISOString(),
        environment: { ...environment(), ...config },
        setupMs: live.setupMs,
        totalMs,
        bytes,
        bare,
        ours,
        ratios,
        target: {
          ratio: TARGET_RATIO,
          throughputMet: ratios.throughput >= TARGET_RATIO,
          p99Met: ratios.p99 >= TARGET_RATIO,
          cpuPerRequestMet: ratios.cpuPerRequest >= TARGET_RATIO,
          bareRunClientBound: clientBound(bare),
        },
        runs: runs.map(({ latenciesMs, ...r }) => ({ ...r, p50Ms: percentile(latenciesMs, 50), p99Ms: percentile(latenciesMs, 99) })),
      },
      startedAt,
      { name: 'task-status', latest: 'task-status-latest.json' },
    );
    process.stdout.write(`Saved ${paths.map((p) => relative(process.cwd(), p)).join(' and ')}\n`);
  } finally {
    await load.stop();
    await bareServer.stop();
    await live.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
