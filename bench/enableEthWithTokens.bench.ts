/**
 * `npm run bench`: wall time and node traffic of `enable_eth_with_tokens` (one batched round trip)
 * against the reference's N + 2 sequential requests, through one latency-injecting, counting proxy.
 *
 * Env: BENCH_LATENCY_MS (default 50), BENCH_BATCH_SIZE (default: the service's 100),
 * BENCH_RUNS (default 5). Prints a table, saves JSON under bench/results/. Exits non-zero only when
 * the run itself fails (setup, an RPC error, or the two paths reading different values); a missed
 * target is printed as MISSED.
 */
import './silence.ts';
import { performance } from 'node:perf_hooks';
import { relative } from 'node:path';
import { analyzeRow, type Row } from './analysis.ts';
import { readBenchConfig, TOKEN_COUNTS, DEPLOYED_TOKENS } from './benchConfig.ts';
import { startFixture, type BenchFixture, type BenchToken } from './fixture.ts';
import { assertSameValues, measureBaseline, measureNodeBatch, measureOurs, type Sample } from './measure.ts';
import { environment, saveResults } from './results.ts';
import { renderReport } from './table.ts';

interface RawSamples {
  readonly n: number;
  readonly ours: Sample[];
  readonly baseline: Sample[];
  /** Diagnostic: the devnet answering the same batch directly (see measureNodeBatch). */
  readonly nodeBatchMs: number[];
}

/** One run of each path on `tokens`, values cross-checked; ours first, then the baseline. */
async function measurePair(fixture: BenchFixture, tokens: readonly BenchToken[], label: string): Promise<{ ours: Sample; baseline: Sample }> {
  const ours = await measureOurs(fixture, tokens);
  const baseline = await measureBaseline(fixture, tokens);
  assertSameValues(ours.values, baseline.values, tokens, label);
  return { ours: ours.sample, baseline: baseline.sample };
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

    // Discarded warm-up at the largest N: first connections, lazy imports, JIT.
    const warmup = await measurePair(fixture, fixture.tokens, 'warm-up');

    const raw: RawSamples[] = [];
    for (const n of TOKEN_COUNTS) {
      const tokens = fixture.tokens.slice(0, n);
      const samples: RawSamples = { n, ours: [], baseline: [], nodeBatchMs: [] };
      for (let run = 1; run <= config.runs; run++) {
        const pair = await measurePair(fixture, tokens, `N=${n} run ${run}`);
        samples.ours.push(pair.ours);
        samples.baseline.push(pair.baseline);
        samples.nodeBatchMs.push(await measureNodeBatch(fixture, tokens));
      }
      raw.push(samples);
      process.stdout.write(`  N=${n}: ${config.runs} runs done\n`);
    }

    const rows: Row[] = raw.map((r) => analyzeRow(r.n, r.ours, r.baseline, r.nodeBatchMs, config));
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
