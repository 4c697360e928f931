/**
 * Turns raw samples into a row per N: summaries, speed-up, the target at N = 50, and
 * notes wherever the traffic differs from what the design predicts.
 */
import type { BenchConfig } from './benchConfig.ts';
import type { Sample } from './measure.ts';
import { summarize, type Summary } from './stats.ts';

/** N at which the issue states its target. */
export const TARGET_N = 50;
/** Slack over one round trip the target allows ours at TARGET_N. */
export const TARGET_SLACK_MS = 30;
/** The speed-up the issue derives from its target at the default 50 ms latency. */
export const TARGET_SPEEDUP = 30;

export interface PathSummary {
  readonly wallMs: Summary;
  readonly httpRequests: Summary;
  readonly rpcCalls: Summary;
  readonly maxInFlight: Summary;
}

/** The target, evaluated on ours at TARGET_N. */
export interface TargetCheck {
  /** ceil((TARGET_N + 2) / batch size). */
  readonly requestLimit: number;
  /** latency + TARGET_SLACK_MS. */
  readonly wallLimitMs: number;
  /** Every run sent at most `requestLimit` HTTP requests... */
  readonly requestsOk: boolean;
  /** ...and all of them were in flight together (maxInFlight = requests in every run). */
  readonly concurrentOk: boolean;
  /** Median wall time under `wallLimitMs`. */
  readonly wallOk: boolean;
  readonly met: boolean;
  /** Informational: median speed-up above TARGET_SPEEDUP (the "i.e." at 50 ms). */
  readonly speedupOk: boolean;
}

export interface Row {
  readonly n: number;
  readonly ours: PathSummary;
  readonly baseline: PathSummary;
  /** Baseline median wall / ours median wall. */
  readonly speedup: number;
  /** What the design predicts: ours ceil((N+2)/batch) requests, the baseline N+2, both N+2 calls. */
  readonly expected: { readonly oursRequests: number; readonly baselineRequests: number; readonly rpcCalls: number };
  readonly target?: TargetCheck;
  /** Diagnostic: the devnet alone answering the same N + 2 calls as one direct batch. */
  readonly nodeBatchMs: Summary;
  /** Median ours wall minus the injected latency: everything but the wire delay. */
  readonly oursBeyondLatencyMs: number;
  /** Deviations from `expected` or from the call mix; empty when all is as designed. */
  readonly notes: readonly string[];
}

function summarizePath(samples: readonly Sample[]): PathSummary {
  return {
    wallMs: summarize(samples.map((s) => s.wallMs)),
    httpRequests: summarize(samples.map((s) => s.httpRequests)),
    rpcCalls: summarize(samples.map((s) => s.rpcCalls)),
    maxInFlight: summarize(samples.map((s) => s.maxInFlight)),
  };
}

/** Builds the row for `n` from its measured runs. */
export function analyzeRow(
  n: number,
  ours: readonly Sample[],
  baseline: readonly Sample[],
  nodeBatchMs: readonly number[],
  config: BenchConfig,
): Row {
  const calls = n + 2;
  const expected = { oursRequests: Math.ceil(calls / config.batchSize), baselineRequests: calls, rpcCalls: calls };
  const expectedMix: Record<string, number> = { eth_blockNumber: 1, eth_getBalance: 1, ...(n > 0 ? { eth_call: n } : {}) };
  const notes: string[] = [];
  const check = (path: string, samples: readonly Sample[], requests: number, concurrent: boolean) =>
    samples.forEach((s, run) => {
      const at = `N=${n} ${path} run ${run + 1}`;
      if (s.httpRequests !== requests) notes.push(`${at}: ${s.httpRequests} HTTP requests, expected ${requests}`);
      if (s.rpcCalls !== calls) notes.push(`${at}: ${s.rpcCalls} JSON-RPC calls, expected ${calls}`);
      if (JSON.stringify(sortKeys(s.byMethod)) !== JSON.stringify(sortKeys(expectedMix))) {
        notes.push(`${at}: call mix ${JSON.stringify(s.byMethod)}, expected ${JSON.stringify(expectedMix)}`);
      }
      const inFlight = concurrent ? s.httpRequests : 1;
      if (s.maxInFlight !== inFlight) notes.push(`${at}: maxInFlight ${s.maxInFlight}, expected ${inFlight}`);
    });
  check('ours', ours, expected.oursRequests, true);
  check('baseline', baseline, expected.baselineRequests, false);

  const oursSummary = summarizePath(ours);
  const baselineSummary = summarizePath(baseline);
  const speedup = baselineSummary.wallMs.median / oursSummary.wallMs.median;
  let target: TargetCheck | undefined;
  if (n === TARGET_N) {
    const requestLimit = Math.ceil((TARGET_N + 2) / config.batchSize);
    const wallLimitMs = config.latencyMs + TARGET_SLACK_MS;
    const requestsOk = ours.every((s) => s.httpRequests <= requestLimit);
    const concurrentOk = ours.every((s) => s.maxInFlight === s.httpRequests);
    const wallOk = oursSummary.wallMs.median < wallLimitMs;
    target = { requestLimit, wallLimitMs, requestsOk, concurrentOk, wallOk, met: requestsOk && concurrentOk && wallOk, speedupOk: speedup > TARGET_SPEEDUP };
  }
  return {
    n,
    ours: oursSummary,
    baseline: baselineSummary,
    speedup,
    expected,
    ...(target ? { target } : {}),
    nodeBatchMs: summarize(nodeBatchMs),
    oursBeyondLatencyMs: oursSummary.wallMs.median - config.latencyMs,
    notes,
  };
}

function sortKeys(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
