import { busyOf } from './busyNodes.ts';

/**
 * A token whose contract answered wrongly (no code, revert, bad data). It is about the request,
 * not the node: failover stops, since retrying elsewhere would give the same answer.
 */
export class TokenReadError extends Error {
  readonly ticker: string;
  constructor(ticker: string, message: string, options?: { cause?: unknown }) {
    super(`token ${ticker}: ${message}`, options);
    this.name = 'TokenReadError';
    this.ticker = ticker;
  }
}

/**
 * Waits for every call of one round trip (so no rejection is left unobserved), then rethrows a
 * node failure before a token failure: only the former should make failover try the next node.
 * A busy answer comes first of all (a rate limit often refuses only some of many concurrent calls).
 */
export async function settleRoundTrip(pending: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(pending.filter((p) => p !== undefined));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) {
    throw failures.find((e) => busyOf(e) !== undefined) ?? failures.find((e) => !(e instanceof TokenReadError)) ?? failures[0];
  }
}
