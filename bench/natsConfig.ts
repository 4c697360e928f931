/** Parameters of the NATS bench, from the environment, with the defaults. */
import { integerFrom } from './benchConfig.ts';

/** Everything the NATS bench can be told. */
export interface NatsBenchConfig {
  /** Offered event rate of the latency part (`BENCH_NATS_RATE`, default 500/s). */
  readonly perSecond: number;
  /** Measured duration of the latency part (`BENCH_NATS_DURATION_MS`, default 10 000). */
  readonly durationMs: number;
  /** Warm-up at the same rate before it, not counted (`BENCH_NATS_WARMUP_MS`, default 2 000: JIT and first subject lookups settle). */
  readonly warmupMs: number;
  /** Events of the replay part (`BENCH_NATS_REPLAY_EVENTS`, default 100 000). */
  readonly replayEvents: number;
  /** Messages of the one-at-a-time raw publish (`BENCH_NATS_RAW_SERIAL_EVENTS`, default 25 000; its rate is round-trip bound). */
  readonly rawSerialEvents: number;
  /** Publishes in flight for the pipelined raw publish (`BENCH_NATS_RAW_IN_FLIGHT`, default 256). */
  readonly rawInFlight: number;
  /** Rounds of each replay and of the raw consume (`BENCH_NATS_ROUNDS`, default 2). */
  readonly rounds: number;
  /** Window of the projector catch-up diagnostic (`BENCH_NATS_PROJECTOR_WINDOW_MS`, default 3 000). */
  readonly projectorWindowMs: number;
}

/** Reads and validates the environment; throws on a malformed value. */
export function readNatsBenchConfig(env: NodeJS.ProcessEnv = process.env): NatsBenchConfig {
  return {
    perSecond: integerFrom(env, 'BENCH_NATS_RATE', 1) ?? 500,
    durationMs: integerFrom(env, 'BENCH_NATS_DURATION_MS', 100) ?? 10_000,
    warmupMs: integerFrom(env, 'BENCH_NATS_WARMUP_MS', 0) ?? 2_000,
    replayEvents: integerFrom(env, 'BENCH_NATS_REPLAY_EVENTS', 2) ?? 100_000,
    rawSerialEvents: integerFrom(env, 'BENCH_NATS_RAW_SERIAL_EVENTS', 1) ?? 25_000,
    rawInFlight: integerFrom(env, 'BENCH_NATS_RAW_IN_FLIGHT', 1) ?? 256,
    rounds: integerFrom(env, 'BENCH_NATS_ROUNDS', 1) ?? 2,
    projectorWindowMs: integerFrom(env, 'BENCH_NATS_PROJECTOR_WINDOW_MS', 100) ?? 3_000,
  };
}

/** Events of the latency part's warm-up and measured phase at the configured rate. */
export function latencyEventCounts(config: NatsBenchConfig): { warmup: number; measured: number } {
  return {
    warmup: Math.round((config.warmupMs * config.perSecond) / 1000),
    measured: Math.max(1, Math.round((config.durationMs * config.perSecond) / 1000)),
  };
}
