/**
 * Turns raw samples into a row per N: summaries per path, ratios, the call-count target at
 * N = 50, and notes wherever the traffic differs from what the design predicts.
 */
import type { BenchConfig } from './benchConfig.ts';
import type { Sample } from './measure.ts';
import { summarize, type Summary } from './stats.ts';

/** N at which the issue states its target. */
export const TARGET_N = 50;
/** Most node calls ETH + TARGET_N tokens may cost, also on a node seen for the first time. */
export const TARGET_CALLS = 3;
/** ...in this many round trips. */
export const TARGET_ROUND_TRIPS = 1;
/** Informational (the previous issue's target): slack over one round trip for the multicall path. */
export const TARGET_SLACK_MS = 30;
/** The service's multicall chunk (MULTICALL_CHUNK_SIZE): reads per `aggregate3`. */
const CHUNK = 100;

/**
 * The measured paths: the multicall on a node the service knows, the same on a node it sees for
 * the first time, today's plain batched calls (a node known to lack the contract), and the
 * reference's sequential requests.
 */
export const PATHS = ['multicall', 'firstContact', 'plain', 'baseline'] as const;
export type PathName = (typeof PATHS)[number];

export interface PathSummary {
  readonly wallMs: Summary;
  readonly httpRequests: Summary;
  readonly rpcCalls: Summary;
  readonly maxInFlight: Summary;
  readonly roundTrips: Summary;
}

/** The target, evaluated on the multicall path at TARGET_N, known node and first contact. */
export interface TargetCheck {
  readonly callsOk: boolean;
  readonly firstContactCallsOk: boolean;
  readonly roundTripsOk: boolean;
  readonly met: boolean;
  /** Informational: median multicall wall under latency + TARGET_SLACK_MS. */
  readonly wallLimitMs: number;
  readonly wallOk: boolean;
}

/** Diagnostic medians (ms): the devnet answering each path's batch directly, and our aggregate3 CPU. */
export interface Diagnostics {
  readonly plainNodeMs: Summary;
  readonly multicallNodeMs: Summary;
  readonly encodeMs: Summary;
  readonly decodeMs: Summary;
}

export interface Row {
  readonly n: number;
  readonly paths: Readonly<Record<PathName, PathSummary>>;
  /** Median wall and calls of the multicall path against each baseline (baseline / multicall). */
  readonly ratios: { readonly vsPlainWall: number; readonly vsBaselineWall: number; readonly vsPlainCalls: number };
  readonly expected: Readonly<Record<PathName, { readonly requests: number; readonly calls: number; readonly mix: Record<string, number> }>>;
  readonly target?: TargetCheck;
  readonly diagnostics: Diagnostics;
  /** Deviations from `expected`; empty when all is as designed. */
  readonly notes: readonly string[];
}

/** Round trips the proxy saw: requests in waves of at most `maxInFlight` (exact when each wave is sent at once). */
export const roundTrips = (s: Sample) => Math.ceil(s.httpRequests / Math.max(1, s.maxInFlight));

function summarizePath(samples: readonly Sample[]): PathSummary {
  const of = (f: (s: Sample) => number) => summarize(samples.map(f));
  return { wallMs: of((s) => s.wallMs), httpRequests: of((s) => s.httpRequests), rpcCalls: of((s) => s.rpcCalls), maxInFlight: of((s) => s.maxInFlight), roundTrips: of(roundTrips) };
}

/** What the design predicts per path for ETH + n tokens. */
export function expectedTraffic(n: number, batchSize: number): Row['expected'] {
  const chunks = Math.ceil((n + 1) / CHUNK);
  const multicallMix = { eth_blockNumber: 1, eth_call: chunks };
  const plainMix: Record<string, number> = { eth_blockNumber: 1, eth_getBalance: 1, ...(n > 0 ? { eth_call: n } : {}) };
  const at = (mix: Record<string, number>, sequential = false) => {
    const calls = Object.values(mix).reduce((a, b) => a + b, 0);
    return { calls, requests: sequential ? calls : Math.ceil(calls / batchSize), mix };
  };
  return { multicall: at(multicallMix), firstContact: at({ ...multicallMix, eth_getCode: 1 }), plain: at(plainMix), baseline: at(plainMix, true) };
}

/** Builds the row for `n` from its measured runs. */
export function analyzeRow(
  n: number,
  samples: Readonly<Record<PathName, readonly Sample[]>>,
  raw: { plainNodeMs: readonly number[]; multicall: readonly { nodeMs: number; encodeMs: number; decodeMs: number }[] },
  config: BenchConfig,
): Row {
  const expected = expectedTraffic(n, config.batchSize);
  const notes: string[] = [];
  for (const path of PATHS) {
    const e = expected[path];
    samples[path].forEach((s, run) => {
      const at = `N=${n} ${path} run ${run + 1}`;
      if (s.httpRequests !== e.requests) notes.push(`${at}: ${s.httpRequests} HTTP requests, expected ${e.requests}`);
      if (s.rpcCalls !== e.calls) notes.push(`${at}: ${s.rpcCalls} JSON-RPC calls, expected ${e.calls}`);
      if (JSON.stringify(sortKeys(s.byMethod)) !== JSON.stringify(sortKeys(e.mix))) notes.push(`${at}: call mix ${JSON.stringify(s.byMethod)}, expected ${JSON.stringify(e.mix)}`);
      const inFlight = path === 'baseline' ? 1 : s.httpRequests;
      if (s.maxInFlight !== inFlight) notes.push(`${at}: maxInFlight ${s.maxInFlight}, expected ${inFlight}`);
    });
  }
  const paths = Object.fromEntries(PATHS.map((p) => [p, summarizePath(samples[p])])) as Record<PathName, PathSummary>;
  const mc = paths.multicall;
  const ratios = {
    vsPlainWall: paths.plain.wallMs.median / mc.wallMs.median,
    vsBaselineWall: paths.baseline.wallMs.median / mc.wallMs.median,
    vsPlainCalls: paths.plain.rpcCalls.median / mc.rpcCalls.median,
  };
  let target: TargetCheck | undefined;
  if (n === TARGET_N) {
    const callsOk = samples.multicall.every((s) => s.rpcCalls <= TARGET_CALLS);
    const firstContactCallsOk = samples.firstContact.every((s) => s.rpcCalls <= TARGET_CALLS);
    const roundTripsOk = [...samples.multicall, ...samples.firstContact].every((s) => roundTrips(s) <= TARGET_ROUND_TRIPS);
    const wallLimitMs = config.latencyMs + TARGET_SLACK_MS;
    target = { callsOk, firstContactCallsOk, roundTripsOk, met: callsOk && firstContactCallsOk && roundTripsOk, wallLimitMs, wallOk: mc.wallMs.median < wallLimitMs };
  }
  const diagnostics = {
    plainNodeMs: summarize(raw.plainNodeMs),
    multicallNodeMs: summarize(raw.multicall.map((m) => m.nodeMs)),
    encodeMs: summarize(raw.multicall.map((m) => m.encodeMs)),
    decodeMs: summarize(raw.multicall.map((m) => m.decodeMs)),
  };
  return { n, paths, ratios, expected, ...(target ? { target } : {}), diagnostics, notes };
}

function sortKeys(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
