import { setMaxListeners } from 'node:events';
import type { Clock } from '../../kernel/clock.ts';

/** Why one node was given up on. `label` is safe to show (origin only, never path or query). */
export interface NodeFailureReport {
  readonly label: string;
  readonly reason: string;
}

/** Every node failed; `failures` is in the order they were tried. */
export class AllNodesFailedError extends Error {
  readonly failures: readonly NodeFailureReport[];
  constructor(failures: readonly NodeFailureReport[]) {
    super(
      `all ${failures.length} node(s) failed: ${failures.map((f) => `${f.label}: ${f.reason}`).join('; ')}`,
    );
    this.name = 'AllNodesFailedError';
    this.failures = failures;
  }
}

/** Thrown inside an attempt's signal when its per-node time budget runs out. */
export class NodeTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'NodeTimeoutError';
  }
}

export interface FailoverOptions {
  readonly clock: Clock;
  /** Budget of one node before the next is tried (a silent node costs this much, a refused one ~0). */
  readonly timeoutMs: number;
  /** Aborts the whole operation (cancel); not a node failure, so no other node is tried. */
  readonly signal?: AbortSignal;
  /** Safe display name of a node, e.g. its URL origin. */
  readonly label: (index: number) => string;
  /** Errors that are about the request, not the node, stop the failover (default: none). */
  readonly isFatal?: (error: unknown) => boolean;
}

/**
 * The one failover policy of the service: try nodes in order, each with its own timeout (an explicit
 * timer on the injected clock plus an AbortController, so the attempt's I/O really stops), and move
 * on at once when a node refuses. Resolves with the first success and the index that gave it.
 */
export async function tryNodesInOrder<T>(
  count: number,
  attempt: (index: number, signal: AbortSignal) => Promise<T>,
  options: FailoverOptions,
): Promise<{ value: T; index: number }> {
  const failures: NodeFailureReport[] = [];
  for (let index = 0; index < count; index++) {
    options.signal?.throwIfAborted();
    const controller = new AbortController();
    // One attempt may run many concurrent requests on this signal (TRON: one per token); it lives
    // only as long as the attempt, so Node's 10-listener leak warning would be a false alarm.
    setMaxListeners(0, controller.signal);
    const onOuterAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const cancelTimer = options.clock.setTimeout(
      () => controller.abort(new NodeTimeoutError(options.timeoutMs)),
      options.timeoutMs,
    );
    try {
      return { value: await raceAbort(attempt(index, controller.signal), controller.signal), index };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (options.isFatal?.(error)) throw error;
      failures.push({ label: options.label(index), reason: describe(error) });
    } finally {
      cancelTimer();
      options.signal?.removeEventListener('abort', onOuterAbort);
    }
  }
  throw new AllNodesFailedError(failures);
}

/** Settles with `work`, or rejects with the abort reason as soon as `signal` aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function describe(error: unknown): string {
  if (error instanceof NodeTimeoutError) return error.message;
  const code = (error as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
