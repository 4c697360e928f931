import type { Clock } from '../../kernel/clock.ts';

/**
 * What a transport says when a node answered "busy" (HTTP 429, a JSON-RPC rate-limit error): the
 * node is fine but will not serve us now. `retryAfter` is the raw `Retry-After` header, if any.
 */
export interface NodeBusy {
  readonly retryAfter?: string;
}

/** The busy answer carried by `error` or by one of its causes (transports' errors wrap it). */
export function busyOf(error: unknown): NodeBusy | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const busy = (current as { busy?: unknown }).busy;
    if (typeof busy === 'object' && busy !== null) return busy as NodeBusy;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A JSON-RPC error object that means "rate limited": EIP-1474's -32005 or a rate-limit message. */
export function isRateLimitError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === -32005) return true;
  // Code 3 is a contract's revert: its reason is the contract's text, not the node's.
  return code !== 3 && typeof message === 'string' && /rate.?limit|too many requests/i.test(message);
}

export interface BusyNodesOptions {
  /**
   * How long a busy node is left alone when its answer has no usable `Retry-After`.
   * @default 10_000 (10 s, one per-node budget)
   */
  readonly defaultRetryAfterMs?: number;
  /**
   * Longest hold-off honoured, whatever `Retry-After` says (a far date or a skewed clock).
   * @default 600_000 (10 min)
   */
  readonly maxRetryAfterMs?: number;
}

/**
 * The nodes that said "busy", and until when, per node URL: one book per service, so every coin
 * that uses a node respects its `Retry-After`. The whole URL is the key (two API keys on one host
 * are two quotas); it stays in memory and is never shown (failures name origins only).
 */
export class BusyNodes {
  readonly #clock: Clock;
  readonly #defaultMs: number;
  readonly #maxMs: number;
  readonly #until = new Map<string, number>();

  constructor(clock: Clock, options: BusyNodesOptions = {}) {
    this.#clock = clock;
    this.#defaultMs = options.defaultRetryAfterMs ?? 10_000;
    this.#maxMs = options.maxRetryAfterMs ?? 600_000;
  }

  /** Records that `url` answered busy; returns how long it is left alone, in ms. */
  markBusy(url: string, retryAfter: string | undefined): number {
    const now = this.#clock.now();
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
    const ms = Math.min(this.#maxMs, retryAfterMs(retryAfter, now) ?? this.#defaultMs);
    this.#until.set(url, now + ms);
    return ms;
  }

  /** Milliseconds before `url` may be asked again; 0 when it is not busy. */
  busyFor(url: string): number {
    const until = this.#until.get(url);
    if (until === undefined) return 0;
    const left = until - this.#clock.now();
    if (left > 0) return left;
    this.#until.delete(url);
    return 0;
  }
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as milliseconds from
 * `now`; `undefined` when absent or malformed. A date in the past is 0.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}
