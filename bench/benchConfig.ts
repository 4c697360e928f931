/** Bench parameters from the environment, validated, with the defaults the issue asks for. */

/**
 * The service's own default batch size (`batchSize ?? 100` in infra/evm/evmFamily.ts). Only used
 * to compute the target when `BENCH_BATCH_SIZE` is unset; the service itself is then given no
 * batch size, so it really runs on its default (and the bench checks the observed request counts
 * against this number).
 */
export const SERVICE_DEFAULT_BATCH_SIZE = 100;

/** Token counts measured, per the issue. */
export const TOKEN_COUNTS = [0, 10, 50, 100] as const;

/** Tokens deployed on the devnet: enough for the largest N. */
export const DEPLOYED_TOKENS = Math.max(...TOKEN_COUNTS);

export interface BenchConfig {
  /** Latency the proxy adds to every HTTP round trip (`BENCH_LATENCY_MS`, default 50). */
  readonly latencyMs: number;
  /** Effective JSON-RPC batch size of the service. */
  readonly batchSize: number;
  /** Whether `batchSize` came from `BENCH_BATCH_SIZE` (passed to the service) or is its default. */
  readonly batchSizeSource: 'BENCH_BATCH_SIZE' | 'service default';
  /** Measured repetitions per N and path (`BENCH_RUNS`, default 5). */
  readonly runs: number;
}

/** Reads and validates the bench environment; throws on a malformed value rather than guessing. */
export function readBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const batch = integerFrom(env, 'BENCH_BATCH_SIZE', 1);
  return {
    latencyMs: integerFrom(env, 'BENCH_LATENCY_MS', 0) ?? 50,
    batchSize: batch ?? SERVICE_DEFAULT_BATCH_SIZE,
    batchSizeSource: batch === undefined ? 'service default' : 'BENCH_BATCH_SIZE',
    runs: integerFrom(env, 'BENCH_RUNS', 1) ?? 5,
  };
}

export function integerFrom(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
  return value;
}
