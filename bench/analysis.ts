/**
 * Turns raw samples into a row per N: summaries per path, ratios, the call-count target at
 * N = 50, and notes wherever the traffic differs from what the design predicts.
 */
import type { BenchConfig } from './benchConfig.ts';
import type { NodeAlone, Sample } from './measure.ts';
import { summarize, type Summary } from './stats.ts';
import { MULTICALL_CHUNK_SIZE } from '../infra/multicall/aggregate3.ts';
import { DEPLOYLESS_CHUNK_READS } from '../infra/evm/multicall/deployless.ts';

/** N at which the issue states its target. */
export const TARGET_N = 50;
/** Most node calls ETH + TARGET_N tokens may cost on each of TARGET_PATHS. */
export const TARGET_CALLS = 3;
/** ...in this many round trips. */
export const TARGET_ROUND_TRIPS = 1;
/** Informational (the previous issue's target): slack over one round trip for the multicall path. */
export const TARGET_SLACK_MS = 30;

/**
 * The measured paths:
 * - `multicall`: the chain has Multicall3 and the service knows the node: one `aggregate3` per
 *   MULTICALL_CHUNK_SIZE reads.
 * - `firstContact`: the same chain, a node the service never saw: one deployless `eth_call` (no
 *   `to`) per DEPLOYLESS_CHUNK_READS reads, the first read a probe of the node's Multicall3.
 * - `deployless`: a chain without Multicall3, first contact: the same deployless call, whose probe
 *   finds nothing.
 * - `plain`: a node that refuses calls without `to`, known to the service: every value its own
 *   call, batched.
 * - `baseline`: the reference's sequential requests.
 */
export const PATHS = ['multicall', 'firstContact', 'deployless', 'plain', 'baseline'] as const;
export type PathName = (typeof PATHS)[number];
/** The paths the target is checked on. */
export const TARGET_PATHS = ['multicall', 'firstContact', 'deployless'] as const satisfies readonly PathName[];
export type TargetPath = (typeof TARGET_PATHS)[number];

export interface PathSummary {
  readonly wallMs: Summary;
  readonly httpRequests: Summary;
  readonly rpcCalls: Summary;
  readonly callsWithoutTo: Summary;
  readonly maxInFlight: Summary;
  readonly roundTrips: Summary;
}

/** The target on one path at TARGET_N: worst run's calls and round trips. */
export interface PathTarget {
  readonly calls: number;
  readonly callsOk: boolean;
  readonly roundTrips: number;
  readonly roundTripsOk: boolean;
}

/** The target, evaluated at TARGET_N on every path of TARGET_PATHS. */
export interface TargetCheck {
  readonly paths: Readonly<Record<TargetPath, PathTarget>>;
  readonly met: boolean;
  /** Informational: median multicall (known node) wall under latency + TARGET_SLACK_MS. */
  readonly wallLimitMs: number;
  readonly wallOk: boolean;
}

/** Diagnostic medians (ms): the devnet answering each path's calls directly, and our encode/decode CPU. */
export interface Diagnostics {
  readonly plainNodeMs: Summary;
  readonly multicallNodeMs: Summary;
  readonly encodeMs: Summary;
  readonly decodeMs: Summary;
  readonly deploylessNodeMs: Summary;
  readonly deploylessEncodeMs: Summary;
  readonly deploylessDecodeMs: Summary;
}

/** What the design predicts for one path: requests, calls, calls by method and calls without `to`. */
export interface Expected {
  readonly requests: number;
  readonly calls: number;
  readonly mix: Record<string, number>;
  readonly withoutTo: number;
}

export interface Row {
  readonly n: number;
  readonly paths: Readonly<Record<PathName, PathSummary>>;
  /**
   * Medians against the multicall path (known node) and against the deployless path (chain
   * without Multicall3): plain / path and sequential / path.
   */
  readonly ratios: {
    readonly vsPlainWall: number;
    readonly vsBaselineWall: number;
    readonly vsPlainCalls: number;
    readonly deploylessVsPlainWall: number;
    readonly deploylessVsBaselineWall: number;
    readonly deploylessVsPlainCalls: number;
  };
  readonly expected: Readonly<Record<PathName, Expected>>;
  readonly target?: TargetCheck;
  readonly diagnostics: Diagnostics;
  /** Deviations from `expected`; empty when all is as designed. */
  readonly notes: readonly string[];
}

/** Round trips the proxy saw: requests in waves of at most `maxInFlight` (exact when each wave is sent at once). */
export const roundTrips = (s: Sample) => Math.ceil(s.httpRequests / Math.max(1, s.maxInFlight));

function summarizePath(samples: readonly Sample[]): PathSummary {
  const of = (f: (s: Sample) => number) => summarize(samples.map(f));
  return {
    wallMs: of((s) => s.wallMs),
    httpRequests: of((s) => s.httpRequests),
    rpcCalls: of((s) => s.rpcCalls),
    callsWithoutTo: of((s) => s.callsWithoutTo),
    maxInFlight: of((s) => s.maxInFlight),
    roundTrips: of(roundTrips),
  };
}

/** What the design predicts per path for ETH + n tokens. */
export function expectedTraffic(n: number, batchSize: number): Row['expected'] {
  // aggregate3: getEthBalance + n balanceOf. Deployless on first contact: the probe + the same n + 1.
  const multicallMix = { eth_blockNumber: 1, eth_call: Math.ceil((n + 1) / MULTICALL_CHUNK_SIZE) };
  const deploylessCalls = Math.ceil((n + 2) / DEPLOYLESS_CHUNK_READS);
  const deploylessMix = { eth_blockNumber: 1, eth_call: deploylessCalls };
  const plainMix: Record<string, number> = { eth_blockNumber: 1, eth_getBalance: 1, ...(n > 0 ? { eth_call: n } : {}) };
  const at = (mix: Record<string, number>, withoutTo: number, sequential = false): Expected => {
    const calls = Object.values(mix).reduce((a, b) => a + b, 0);
    return { calls, requests: sequential ? calls : Math.ceil(calls / batchSize), mix, withoutTo };
  };
  return {
    multicall: at(multicallMix, 0),
    firstContact: at(deploylessMix, deploylessCalls),
    deployless: at(deploylessMix, deploylessCalls),
    plain: at(plainMix, 0),
    baseline: at(plainMix, 0, true),
  };
}

/** Builds the row for `n` from its measured runs. */
export function analyzeRow(
  n: number,
  samples: Readonly<Record<PathName, readonly Sample[]>>,
  raw: { plainNodeMs: readonly number[]; multicall: readonly NodeAlone[]; deployless: readonly NodeAlone[] },
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
      if (s.callsWithoutTo !== e.withoutTo) notes.push(`${at}: ${s.callsWithoutTo} eth_call without to, expected ${e.withoutTo}`);
      const inFlight = path === 'baseline' ? 1 : s.httpRequests;
      if (s.maxInFlight !== inFlight) notes.push(`${at}: maxInFlight ${s.maxInFlight}, expected ${inFlight}`);
    });
  }
  const paths = Object.fromEntries(PATHS.map((p) => [p, summarizePath(samples[p])])) as Record<PathName, PathSummary>;
  const { multicall: mc, deployless: dl, plain, baseline } = paths;
  const ratios = {
    vsPlainWall: plain.wallMs.median / mc.wallMs.median,
    vsBaselineWall: baseline.wallMs.median / mc.wallMs.median,
    vsPlainCalls: plain.rpcCalls.median / mc.rpcCalls.median,
    deploylessVsPlainWall: plain.wallMs.median / dl.wallMs.median,
    deploylessVsBaselineWall: baseline.wallMs.median / dl.wallMs.median,
    deploylessVsPlainCalls: plain.rpcCalls.median / dl.rpcCalls.median,
  };
  let target: TargetCheck | undefined;
  if (n === TARGET_N) {
    const perPath = Object.fromEntries(
      TARGET_PATHS.map((p) => {
        const calls = Math.max(...samples[p].map((s) => s.rpcCalls));
        const trips = Math.max(...samples[p].map(roundTrips));
        return [p, { calls, callsOk: calls <= TARGET_CALLS, roundTrips: trips, roundTripsOk: trips <= TARGET_ROUND_TRIPS }];
      }),
    ) as Record<TargetPath, PathTarget>;
    const wallLimitMs = config.latencyMs + TARGET_SLACK_MS;
    target = {
      paths: perPath,
      met: TARGET_PATHS.every((p) => perPath[p].callsOk && perPath[p].roundTripsOk),
      wallLimitMs,
      wallOk: mc.wallMs.median < wallLimitMs,
    };
  }
  const diagnostics = {
    plainNodeMs: summarize(raw.plainNodeMs),
    multicallNodeMs: summarize(raw.multicall.map((m) => m.nodeMs)),
    encodeMs: summarize(raw.multicall.map((m) => m.encodeMs)),
    decodeMs: summarize(raw.multicall.map((m) => m.decodeMs)),
    deploylessNodeMs: summarize(raw.deployless.map((m) => m.nodeMs)),
    deploylessEncodeMs: summarize(raw.deployless.map((m) => m.encodeMs)),
    deploylessDecodeMs: summarize(raw.deployless.map((m) => m.decodeMs)),
  };
  return { n, paths, ratios, expected, ...(target ? { target } : {}), diagnostics, notes };
}

function sortKeys(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
