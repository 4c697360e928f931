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
