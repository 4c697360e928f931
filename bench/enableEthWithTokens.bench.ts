/**
 * `npm run bench`: node calls, HTTP requests and wall time of `enable_eth_with_tokens` on five
 * paths, all through latency-injecting, counting proxies in front of one devnet:
 *
 * - multicall: the chain has Multicall3 and the service knows the node: one `aggregate3` per 100
 *   reads beside `eth_blockNumber`;
 * - first contact: the same chain, a node the service never saw (a new proxy, so a new URL, per
 *   run): one deployless `eth_call` without `to` per 150 reads, its first read a probe of the
 *   node's Multicall3;
 * - deployless: a chain without Multicall3 (a second service whose ETH `multicall_address` has no
 *   code), first contact each run (a new proxy per run): the same deployless call, whose probe
 *   finds nothing;
 * - plain: a node that refuses `eth_call` without `to` (a limited node in front of the same chain,
 *   behind its own proxy), which the service learned in the warm-up: every value its own call, in
 *   one JSON-RPC batch;
 * - baseline: the reference's N + 2 sequential requests.
 *
 * Every run of every path must read the same, correct balances.
 *
 * Env: BENCH_LATENCY_MS (default 50), BENCH_BATCH_SIZE (default: the service's 100),
 * BENCH_RUNS (default 5). Prints a table, saves JSON under bench/results/. Exits non-zero only when
 * the run itself fails (setup, an RPC error, or the paths reading different values); a missed
 * target is printed as MISSED.
 */
import './silence.ts';
import { performance } from 'node:perf_hooks';
import { relative } from 'node:path';
import { readBenchConfig, TOKEN_COUNTS, DEPLOYED_TOKENS } from './benchConfig.ts';
import { startLatencyProxy, type LatencyProxy } from '../devnet/index.ts';
import type { Stack } from '../devnet/testing/stack.ts';
import { analyzeRow, PATHS, type PathName, type Row } from './analysis.ts';
import { startFixture, type BenchFixture, type BenchToken } from './fixture.ts';
import { assertSameValues, measureBaseline, measureNodeBatch, measureNodeDeployless, measureNodeMulticall, measureOurs, type Measured, type NodeAlone, type Sample } from './measure.ts';
import { environment, saveResults } from './results.ts';
import { renderReport } from './table.ts';

interface RawSamples {
  readonly n: number;
  readonly samples: Record<PathName, Sample[]>;
  /** Diagnostic: the devnet answering the plain batch directly (see measureNodeBatch). */
  readonly plainNodeMs: number[];
  /** Diagnostic: the devnet answering the aggregate3 directly, and our encode/decode CPU. */
  readonly multicall: NodeAlone[];
  /** Diagnostic: the devnet answering the first-contact deployless call directly, and our encode/decode CPU. */
  readonly deployless: NodeAlone[];
}

/** `stack` reading through a node it never saw: a new proxy (new URL) in front of the devnet, for this run only. */
async function measureFirstContact(fixture: BenchFixture, stack: Stack, tokens: readonly BenchToken[], latencyMs: number): Promise<Measured> {
  const proxy: LatencyProxy = await startLatencyProxy({ target: fixture.devnet.url, latencyMs });
  try {
    return await measureOurs(stack, proxy, tokens);
  } finally {
    await proxy.stop();
  }
}

/** One run of each path on `tokens`, one after another, values cross-checked across all five. */
async function measureAll(fixture: BenchFixture, tokens: readonly BenchToken[], latencyMs: number, label: string): Promise<Record<PathName, Sample>> {
  const measured: Record<PathName, Measured> = {
    multicall: await measureOurs(fixture.stack, fixture.proxy, tokens),
    firstContact: await measureFirstContact(fixture, fixture.stack, tokens, latencyMs),
    deployless: await measureFirstContact(fixture, fixture.noMulticallStack, tokens, latencyMs),
    plain: await measureOurs(fixture.stack, fixture.limitedProxy, tokens),
    baseline: await measureBaseline(fixture, tokens),
  };
  assertSameValues(Object.fromEntries(PATHS.map((p) => [p, measured[p].values])), tokens, label);
  return Object.fromEntries(PATHS.map((p) => [p, measured[p].sample])) as Record<PathName, Sample>;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const config = readBenchConfig();
  process.stdout.write(`Starting devnet with ${DEPLOYED_TOKENS} tokens, service and proxy…\n`);
  const fixture = await startFixture(config);
  try {
    const { devnetMs, serviceMs, proxyMs } = fixture.startup;
    process.stdout.write(`  devnet ${devnetMs.toFixed(0)} ms, service ${serviceMs.toFixed(0)} ms, proxy ${proxyMs.toFixed(0)} ms\n`);

    // Discarded warm-up at the largest N: first connections, lazy imports, JIT, and the service
    // learning its two known nodes (so `multicall` reads the shared proxy's node with aggregate3 and
    // `plain` knows the limited node refuses calls without `to`).
    const warmup = await measureAll(fixture, fixture.tokens, config.latencyMs, 'warm-up');

    const raw: RawSamples[] = [];
    for (const n of TOKEN_COUNTS) {
      const tokens = fixture.tokens.slice(0, n);
      const row: RawSamples = { n, samples: { multicall: [], firstContact: [], deployless: [], plain: [], baseline: [] }, plainNodeMs: [], multicall: [], deployless: [] };
      for (let run = 1; run <= config.runs; run++) {
        const samples = await measureAll(fixture, tokens, config.latencyMs, `N=${n} run ${run}`);
        for (const p of PATHS) row.samples[p].push(samples[p]);
        row.plainNodeMs.push(await measureNodeBatch(fixture, tokens));
        row.multicall.push(await measureNodeMulticall(fixture, tokens));
        row.deployless.push(await measureNodeDeployless(fixture, tokens));
      }
      raw.push(row);
      process.stdout.write(`  N=${n}: ${config.runs} runs done\n`);
    }

    const rows: Row[] = raw.map((r) => analyzeRow(r.n, r.samples, r, config));
    const totalMs = performance.now() - t0;
    process.stdout.write(`\n${renderReport(rows, config)}\n\nTotal bench time ${(totalMs / 1000).toFixed(1)} s (startup ${((devnetMs + serviceMs + proxyMs) / 1000).toFixed(1)} s)\n`);

    const paths = await saveResults(
      {
        startedAt: startedAt.toISOString(),
        environment: { ...environment(), latencyMs: config.latencyMs, batchSize: config.batchSize, batchSizeSource: config.batchSizeSource, runs: config.runs },
        startupMs: fixture.startup,
        totalMs,
        rows,
        samples: raw,
        warmup,
      },
      startedAt,
    );
    process.stdout.write(`Saved ${paths.map((p) => relative(process.cwd(), p)).join(' and ')}\n`);
  } finally {
    await fixture.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
