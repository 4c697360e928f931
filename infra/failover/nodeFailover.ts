import { setMaxListeners } from 'node:events';
import type { Clock } from '../../kernel/clock.ts';
import { busyOf, type BusyNodes } from './busyNodes.ts';
import { currentActivationProgress, NodeOutcome } from '../../actors/ports/activationProgress.ts';

/** Why one node was given up on. `label` is safe to show (origin only, never path or query). */
export interface NodeFailureReport {
  readonly label: string;
  readonly reason: string;
  /** The node said "busy" (now or within its `Retry-After`), not "dead". */
  readonly busy?: boolean;
}

/** Every node failed; `failures` is in the order they were tried. */
export class AllNodesFailedError extends Error {
  readonly failures: readonly NodeFailureReport[];
  constructor(failures: readonly NodeFailureReport[]) {
    const allBusy = failures.length > 0 && failures.every((f) => f.busy === true);
    super(
      `all ${failures.length} node(s) ${allBusy ? 'are busy' : 'failed'}: ${failures.map((f) => `${f.label}: ${f.reason}`).join('; ')}`,
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
  /**
   * Nodes that answered "busy" are skipped until their `Retry-After` (`key`: the node's whole URL,
   * never shown). When every node is busy the failover fails at once rather than waiting.
   */
  readonly busy?: { readonly book: BusyNodes; readonly key: (index: number) => string };
}

/**
 * The one failover policy of the service: try nodes in order, each with its own timeout (an explicit
 * timer on the injected clock plus an AbortController, so the attempt's I/O really stops), and move
 * on at once when a node refuses. Resolves with the first success and the index that gave it.
 * Within an activation, every node asked or skipped is reported to its progress (`NodeAttempted`),
 * by label only; a cancelled read reports nothing more.
 */
export async function tryNodesInOrder<T>(
  count: number,
  attempt: (index: number, signal: AbortSignal) => Promise<T>,
  options: FailoverOptions,
): Promise<{ value: T; index: number }> {
  const failures: NodeFailureReport[] = [];
  const progress = currentActivationProgress()?.nodeRead();
  const report = (index: number, outcome: NodeOutcome, startedAt: number, retryAfterMs?: number) =>
    progress?.({
      node: index,
      origin: options.label(index),
      retry: failures.length,
      outcome,
      ms: Math.max(0, Math.round(options.clock.now() - startedAt)),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs: Math.ceil(retryAfterMs) }),
    });
  for (let index = 0; index < count; index++) {
    options.signal?.throwIfAborted();
    const busyMs = options.busy?.book.busyFor(options.busy.key(index)) ?? 0;
    if (busyMs > 0) {
      report(index, NodeOutcome.SkippedBusy, options.clock.now(), busyMs);
      failures.push({ label: options.label(index), reason: `busy, not asked again for ${seconds(busyMs)} s`, busy: true });
      continue;
    }
    const startedAt = options.clock.now();
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
      const value = await raceAbort(attempt(index, controller.signal), controller.signal);
      report(index, NodeOutcome.Answered, startedAt);
      return { value, index };
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (options.isFatal?.(error)) {
        report(index, NodeOutcome.Rejected, startedAt);
        throw error;
      }
      const busy = busyOf(error);
      if (busy !== undefined && options.busy !== undefined) {
        const ms = options.busy.book.markBusy(options.busy.key(index), busy.retryAfter);
        report(index, NodeOutcome.Busy, startedAt, ms);
        failures.push({ label: options.label(index), reason: `busy (${describe(error)}), asked again in ${seconds(ms)} s`, busy: true });
      } else {
        report(index, error instanceof NodeTimeoutError ? NodeOutcome.TimedOut : NodeOutcome.Failed, startedAt);
        failures.push({ label: options.label(index), reason: describe(error) });
      }
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

/** Whole seconds, rounded up (a node busy for 200 ms is not "busy for 0 s"). */
function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

function describe(error: unknown): string {
  if (error instanceof NodeTimeoutError) return error.message;
  const code = (error as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
