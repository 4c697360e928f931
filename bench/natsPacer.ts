/** An open-loop load generator: calls at a steady rate, never waiting for earlier calls to finish. */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** What {@link paced} did. */
export interface PacedRun {
  /** Calls made. */
  readonly count: number;
  /** performance.now() of the first and the last call. */
  readonly firstAt: number;
  readonly lastAt: number;
  /** Calls per second between the first and the last call. */
  readonly achievedPerSecond: number;
  /** How late each call was made relative to its schedule, ms (one per call, in call order). */
  readonly lateMs: Float64Array;
}

/**
 * Calls `fire(i, scheduledAt)` for i = 0 … count−1, call i scheduled at start + i / rate. Open
 * loop: `fire` must not block (start async work and return), so a slow system shows up as
 * latency, not as a lower offered rate; if the event loop itself falls behind, the calls that
 * are due are made at once and `lateMs` says by how much.
 */
export async function paced(count: number, perSecond: number, fire: (i: number, scheduledAt: number) => void): Promise<PacedRun> {
  const periodMs = 1000 / perSecond;
  const lateMs = new Float64Array(count);
  const start = performance.now() + 5;
  let firstAt = 0;
  let lastAt = 0;
  let i = 0;
  while (i < count) {
    let now = performance.now();
    while (i < count && start + i * periodMs <= now) {
      const scheduledAt = start + i * periodMs;
      lateMs[i] = now - scheduledAt;
      if (i === 0) firstAt = now;
      lastAt = now;
      fire(i, scheduledAt);
      i++;
      now = performance.now();
    }
    if (i < count) await sleep(Math.max(0, start + i * periodMs - performance.now()));
  }
  const spanMs = lastAt - firstAt;
  return { count, firstAt, lastAt, achievedPerSecond: spanMs > 0 ? ((count - 1) * 1000) / spanMs : count, lateMs };
}
