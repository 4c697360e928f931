/** Percentile summaries of latency samples and of throughput rounds. */
import { percentile, summarize } from './stats.ts';

/** A latency distribution, ms. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Nearest-rank p50/p90/p99, max and mean of a non-empty sample. */
export function summarizeLatency(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1]!,
    meanMs: sum / sorted.length,
  };
}

/** A rate measured over several rounds: median, min and max events/s, and every round. */
export interface RateSummary {
  readonly medianPerSecond: number;
  readonly minPerSecond: number;
  readonly maxPerSecond: number;
  readonly rounds: number[];
}

/** Summarizes the per-round rates (events/s). */
export function summarizeRates(rounds: readonly number[]): RateSummary {
  const s = summarize(rounds);
  return { medianPerSecond: s.median, minPerSecond: s.min, maxPerSecond: s.max, rounds: [...rounds] };
}

/** `events` over `ms`, per second. */
export function perSecond(events: number, ms: number): number {
  return ms > 0 ? (events * 1000) / ms : Number.POSITIVE_INFINITY;
}
