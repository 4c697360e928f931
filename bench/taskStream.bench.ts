/**
 * Task progress pushed vs polled (issue 15): N live tasks (1,000) whose statuses change at a
 * steady rate, followed by C GUIs (50) either on `/event-stream?id=<k>` (client k hears the tasks
 * `init` gave `client_id` k) or by polling `task::enable_eth::status` for each of their tasks twice
 * a second, as wallet GUIs do. The same changes run in three windows: no client (the cost of the
 * changes alone), streams, polling.
 *
 * The service runs in a child process (streamServer.ts) so `process.cpuUsage()` there is the
 * server's CPU alone; the clients run here. Latency is from the moment the service applied a
 * change (its log listener, after the fsync: from then on status answers it) to the moment a
 * client first saw it. Goals: stream p99 ≤ 20 ms, and stream server CPU ≤ 0.1× polling's.
 *
 * Env: BENCH_STREAM_TASKS (1000), BENCH_STREAM_CLIENTS (50), BENCH_STREAM_RATE (changes/s, 50:
 * each task every 20 s), BENCH_STREAM_DURATION_MS (10000 per window), BENCH_STREAM_POLL_MS (500),
 * BENCH_STREAM_ROUNDS (3: odd, so each median is one round's window and a single disturbed window
 * moves nothing; the first round's stream window has cost up to twice the others, see
 * docs/benchmarks.md; odd rounds reverse the order of the windows; first, one short window of
 * each mode is not counted: it carries the garbage left by the setup and the compilation of that
 * mode's code path). The table shows medians
 * over the rounds. The CPU goal is checked twice: on whole windows (the changes themselves, the
 * log's appends and fsyncs, cost the same in every mode and can dominate) and on the CPU spent on
 * the clients, above the changes-only window.
 * Prints a table, saves JSON to bench/results/task-stream-<timestamp>.json and task-stream-latest.json.
 */
import './silence.ts';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { integerFrom } from './benchConfig.ts';
import { nextMessage } from './childMessage.ts';
import { environment, saveResults } from './results.ts';
import { percentile } from './stats.ts';
import { renderTable } from './table.ts';
import { BENCH_PASSWORD } from './statusServers.ts';
import type { ServerReply, WindowRequest, WindowResult } from './streamServer.ts';
import { startPollers, startStreamWatchers, type Watchers } from './streamClients.ts';

export const TARGET_P99_MS = 20;
export const TARGET_CPU_RATIO = 0.1;
/** Length of each uncounted warm-up window. */
const WARMUP_MS = 3_000;

const env = process.env;
const config = {
  tasks: integerFrom(env, 'BENCH_STREAM_TASKS', 1) ?? 1000,
  clients: integerFrom(env, 'BENCH_STREAM_CLIENTS', 1) ?? 50,
  ratePerS: integerFrom(env, 'BENCH_STREAM_RATE', 1) ?? 50,
  durationMs: integerFrom(env, 'BENCH_STREAM_DURATION_MS', 1000) ?? 10_000,
  pollMs: integerFrom(env, 'BENCH_STREAM_POLL_MS', 10) ?? 500,
  rounds: integerFrom(env, 'BENCH_STREAM_ROUNDS', 1) ?? 3,
};

const child = fork(fileURLToPath(new URL('./streamServer.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx', '--expose-gc'],
  env: { ...env, BENCH_STREAM_TASKS: String(config.tasks), BENCH_STREAM_CLIENTS: String(config.clients) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const reply = () => nextMessage<ServerReply>(child, 'bench server');

interface WindowReport {
  readonly mode: 'changes only' | 'stream' | 'poll';
  readonly serverCpuMs: number;
  readonly serverCpuPercent: number;
  readonly changes: number;
  readonly seen: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly requests?: number;
}

async function runWindow(mode: WindowReport['mode'], watchers: (Watchers & { requests?: () => number; errors?: () => number }) | undefined, settleMs: number, durationMs = config.durationMs): Promise<WindowReport> {
  const answer = reply();
  child.send({ type: 'window', label: mode, durationMs, ratePerS: config.ratePerS } satisfies WindowRequest);
  const result = (await answer) as WindowResult | { type: 'failed'; error: string };
  if (result.type !== 'window') throw new Error(`server failed: ${JSON.stringify(result)}`);
  // Let the last changes reach the clients (a poller sees a change within one period).
  const deadline = Date.now() + settleMs;
  while (watchers !== undefined && Date.now() < deadline && result.applied.some(([d]) => !watchers.seen.has(d))) await new Promise((r) => setTimeout(r, 20));
  watchers?.stop();
  const latencies = watchers === undefined ? [] : result.applied.flatMap(([d, at]) => (watchers.seen.has(d) ? [watchers.seen.get(d)! - at] : [])).sort((a, b) => a - b);
  if (watchers?.errors !== undefined && watchers.errors() > 0) throw new Error(`${watchers.errors()} poll(s) failed`);
  const base = { mode, serverCpuMs: result.cpuUs / 1000, serverCpuPercent: (result.cpuUs / 1000 / result.wallMs) * 100, changes: result.applied.length, seen: watchers === undefined ? 0 : latencies.length };
  if (latencies.length === 0) return base;
  return {
    ...base,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1)!,
    ...(watchers?.requests === undefined ? {} : { requests: watchers.requests() }),
  };
}

/** Median of each number field of a mode's windows (latencies pooled would need the samples; medians of windows are enough here). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
function combine(windows: readonly WindowReport[]): WindowReport {
  const pick = (f: (w: WindowReport) => number | undefined) => {
    const values = windows.map(f).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const [first] = windows;
  const out: Record<string, unknown> = { mode: first!.mode };
  for (const key of ['serverCpuMs', 'serverCpuPercent', 'changes', 'seen', 'p50Ms', 'p99Ms', 'maxMs', 'requests'] as const) {
    const v = pick((w) => w[key]);
    if (v !== undefined) out[key] = v;
  }
  return out as unknown as WindowReport;
}

try {
  const ready = await reply();
  if (ready.type !== 'ready') throw new Error(`bench server did not start: ${JSON.stringify(ready)}`);
  process.stdout.write(`${config.tasks} live tasks in ${(ready.setupMs / 1000).toFixed(1)} s; ${config.ratePerS} changes/s; ${config.rounds} rounds of three ${config.durationMs / 1000} s windows\n`);

  const runs: Record<WindowReport['mode'], WindowReport[]> = { 'changes only': [], stream: [], poll: [] };
  const run = {
    'changes only': (durationMs?: number) => runWindow('changes only', undefined, 0, durationMs),
    stream: async (durationMs?: number) => runWindow('stream', await startStreamWatchers(ready.url, BENCH_PASSWORD, config.clients), 2_000, durationMs),
    poll: (durationMs?: number) => runWindow('poll', startPollers(ready.url, BENCH_PASSWORD, ready.taskIds, config.clients, config.pollMs), config.pollMs + 1_000, durationMs),
  };
  // First windows, not counted: one of each mode, so that neither mode's first counted window pays
  // for what setting up 1,000 tasks leaves behind (garbage) or for compiling its own code path.
  for (const mode of ['changes only', 'stream', 'poll'] as const) await run[mode](WARMUP_MS);
  // Odd rounds run the windows in the reverse order, so a drifting machine favours no mode.
  for (let round = 0; round < config.rounds; round++) {
    const order = (['changes only', 'stream', 'poll'] as const).slice();
    if (round % 2 === 1) order.reverse();
    for (const mode of order) {
      const window = await run[mode]();
      if (mode === 'stream' && window.seen !== window.changes) throw new Error(`the streams missed ${window.changes - window.seen} of ${window.changes} changes`);
      runs[mode].push(window);
    }
  }
  const idle = combine(runs['changes only']);
  const stream = combine(runs.stream);
  const poll = combine(runs.poll);
  const cpuRatio = stream.serverCpuMs / poll.serverCpuMs;
  const aboveIdle = Math.max(0, stream.serverCpuMs - idle.serverCpuMs) / (poll.serverCpuMs - idle.serverCpuMs);
  const p99Met = (stream.p99Ms ?? Infinity) <= TARGET_P99_MS;
  const cpuMet = cpuRatio <= TARGET_CPU_RATIO;
  const aboveIdleMet = aboveIdle <= TARGET_CPU_RATIO;
  const ms = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(2));
  const lines = renderTable(
    ['window (median of rounds)', 'server CPU ms', 'CPU % of a core', 'changes', 'seen', 'p50 ms', 'p99 ms', 'max ms', 'status requests'],
    [idle, stream, poll].map((w) => [w.mode, w.serverCpuMs.toFixed(0), w.serverCpuPercent.toFixed(1), String(w.changes), String(w.seen), ms(w.p50Ms), ms(w.p99Ms), ms(w.maxMs), w.requests === undefined ? '—' : String(w.requests)]),
  );
  const mark = (ok: boolean) => (ok ? 'MET' : '*** MISSED ***');
  lines.push(
    '',
    `stream p99 ${ms(stream.p99Ms)} ms (target ≤ ${TARGET_P99_MS} ms): ${mark(p99Met)}`,
    `server CPU, stream / poll, whole windows: ${cpuRatio.toFixed(3)} (target ≤ ${TARGET_CPU_RATIO}): ${mark(cpuMet)}`,
    `server CPU spent on the clients (above the changes-only window), stream / poll: ${aboveIdle.toFixed(3)} (target ≤ ${TARGET_CPU_RATIO}): ${mark(aboveIdleMet)}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  const report = { bench: 'task-stream', date: new Date().toISOString(), environment: environment(), config, windows: { idle, stream, poll }, cpuRatio, cpuRatioAboveIdle: aboveIdle, targets: { p99Ms: TARGET_P99_MS, cpuRatio: TARGET_CPU_RATIO, p99Met, cpuMet, aboveIdleMet }, rounds: runs };
  const paths = await saveResults(report, new Date(), { name: 'task-stream', latest: 'task-stream-latest.json' });
  process.stdout.write(`saved ${paths.map((p) => relative(process.cwd(), p)).join(', ')}\n`);
} catch (error) {
  process.stderr.write(`task stream bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'exit' });
    await exited;
  }
}
