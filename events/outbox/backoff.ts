import type { Clock } from '../../kernel/clock.ts';

/** Capped exponential backoff: `initialMs`, doubled per failed attempt, never above `maxMs`. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** 50 ms, 100 ms, 200 ms … at most 5 s. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 50, maxMs: 5_000 };

/** Delay before retry number `attempt` (0-based). */
export function backoffDelay(policy: BackoffPolicy, attempt: number): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
}

/** A level-free signal: every {@link Wake.fire} resolves the waits pending at that moment. */
export class Wake {
  readonly #waiters = new Set<() => void>();

  /** Calls `fn` on the next {@link fire}; the returned function cancels that. */
  once(fn: () => void): () => void {
    this.#waiters.add(fn);
    return () => this.#waiters.delete(fn);
  }

  fire(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const w of waiters) w();
  }
}

/**
 * Waits `ms` on `clock`; resolves early when `wake` fires (e.g. the connection came back), and
 * rejects with the signal's reason when `signal` aborts.
 */
export function pause(clock: Clock, ms: number, signal: AbortSignal, wake?: Wake): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      cancelTimer();
      cancelWake();
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const cancelTimer = clock.setTimeout(() => finish(resolve), ms);
    const cancelWake = wake?.once(() => finish(resolve)) ?? (() => false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const abortWakes = new WeakMap<AbortSignal, Wake>();

/**
 * A {@link Wake} that fires when `signal` aborts: one listener on the signal however many waits
 * use it (adding and removing an `EventTarget` listener per publish cost more than the rest of
 * the wait). Check `signal.aborted` before waiting on it: it fires once.
 */
export function abortWake(signal: AbortSignal): Wake {
  let wake = abortWakes.get(signal);
  if (wake === undefined) {
    const created = new Wake();
    signal.addEventListener('abort', () => created.fire(), { once: true });
    abortWakes.set(signal, (wake = created));
  }
  return wake;
}

/** Settles like `promise`, or rejects with the signal's reason as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const cancel = abortWake(signal).once(() => reject(signal.reason));
    promise.then(
      (v) => (cancel(), resolve(v)),
      (e) => (cancel(), reject(e)),
    );
  });
}
