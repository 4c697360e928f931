/**
 * The reference implementation's own GUI client (its Dart SDK) on the wire, for tests: requests in
 * its shape (v2: `method`, `mmrpc`, `params`, `userpass` in that order and no `id`; `"params":
 * null` when a method takes none; legacy: the fields at the top level) and its error detection.
 * docs/compatibility.md §19 gives the sources in the client.
 */

export interface ClientAnswer {
  readonly status: number;
  readonly body: any;
}

/** One request the client made, for a test to read back. */
export interface ClientCall {
  readonly method: string;
  readonly ticker: string | undefined;
  readonly status: number;
  readonly failed: boolean;
  readonly body: any;
}

/**
 * Whether the SDK takes an answer as an error (its `ErrorResponse` test): a top-level `error`
 * key, `result.details.error`, `result.status == "Error"`, or `code == -1`.
 */
export function isSdkError(body: any): boolean {
  if (body === null || typeof body !== 'object') return true;
  return 'error' in body || body.result?.details?.error !== undefined || body.result?.status === 'Error' || body.code === -1;
}

export class ReferenceClient {
  /** Every request in the order it was answered. */
  readonly calls: ClientCall[] = [];
  readonly #url: string;
  readonly #password: string;

  constructor(url: string, password: string) {
    this.#url = url;
    this.#password = password;
  }

  /** A v2 request as the SDK writes it (`params` null for a method without params). */
  v2(method: string, params: Record<string, unknown> | null): Promise<ClientAnswer> {
    return this.#post(method, params?.['ticker'] ?? params?.['coin'], { method, mmrpc: '2.0', params, userpass: this.#password });
  }

  /** A legacy request: no `mmrpc`, the fields at the top level. */
  legacy(method: string, fields: Record<string, unknown> = {}): Promise<ClientAnswer> {
    return this.#post(method, fields['coin'], { method, ...fields, userpass: this.#password });
  }

  async #post(method: string, ticker: unknown, request: unknown): Promise<ClientAnswer> {
    const response = await fetch(this.#url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const text = await response.text();
    const body = JSON.parse(text);
    this.calls.push({ method, ticker: typeof ticker === 'string' ? ticker : undefined, status: response.status, failed: isSdkError(body), body });
    return { status: response.status, body };
  }
}
