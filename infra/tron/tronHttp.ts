/**
 * One TRON full node's HTTP API (java-tron `/wallet/*`), through tronweb's `HttpProvider`. Every
 * request honours an `AbortSignal`, int64 fields are parsed exactly (never via a float), and any
 * answer that says the node cannot serve us (refused, non-2xx, `{"Error": …}`, not JSON) is a
 * `TronNodeError`, so failover moves to the next node.
 */
import type { providers as TronProviders } from 'tronweb';
import { X_AUTH_PAYLOAD, type ProxySigner } from '../gatewayProxy/proxySign.ts';
import type { NodeBusy } from '../failover/busyNodes.ts';

type HttpProvider = InstanceType<typeof TronProviders.HttpProvider>;

/** tronweb takes ~0.9 s to load: it is loaded on the first TRON request, not at service start. */
let tronweb: Promise<typeof import('tronweb')> | undefined;
const loadTronweb = () => (tronweb ??= import('tronweb'));

/** A node failure (refused, HTTP error, busy or rate-limited, malformed answer): try the next node. */
export class TronNodeError extends Error {
  /** Set when the node said "busy" (HTTP 429, a rate-limit `Error`): failover leaves it alone a while. */
  readonly busy?: NodeBusy;
  constructor(message: string, options?: { cause?: unknown; busy?: NodeBusy }) {
    super(message, options);
    this.name = 'TronNodeError';
    if (options?.busy !== undefined) this.busy = options.busy;
  }
}

/** TronGrid's and java-tron's words for a rate limit (the latter's "frequency limit" answers). */
const RATE_LIMITED = /rate.?limit|too many requests|frequency limit/i;

/** A JSON object as the node answered it; int64 values beyond 2^53 arrive as digit strings. */
export type TronJson = Readonly<Record<string, unknown>>;

export interface TronHttp {
  /** `POST {url}/{path}` with a JSON body; resolves with the answer object. */
  post(path: string, body: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<TronJson>;
}

/**
 * A client of the node at `url` (its base URL, e.g. `https://api.trongrid.io`). With `signer` (a
 * gateway-proxy node) each request carries its signed `X-Auth-Payload`, signed over the full
 * request URL and body, as the reference signs its TRON requests.
 */
export function createTronHttp(url: string, signer?: ProxySigner): TronHttp {
  // The failover's per-node timer governs; tronweb's own timeout is off (0).
  let provider: Promise<HttpProvider> | undefined;
  const connect = () => (provider ??= loadTronweb().then(({ providers }) => new providers.HttpProvider(url, 0)));
  return {
    async post(path, body, signal) {
      // Sent as this exact text, so that the signed body size is the size sent.
      const data = JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (signer !== undefined) headers[X_AUTH_PAYLOAD] = JSON.stringify(signer.sign(endpoint(url, path), Buffer.byteLength(data)));
      let text: unknown;
      try {
        const response = await (await connect()).instance.request<unknown>({
          url: path,
          method: 'post',
          data,
          headers,
          signal,
          responseType: 'text',
          // Keep the raw text: axios' JSON.parse would round int64 balances above 2^53.
          transformResponse: [(data: unknown) => data],
        });
        text = response.data;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new TronNodeError(`${path}: ${describeHttpError(error)}`, { cause: error, ...busyAnswer(error) });
      }
      const json = typeof text === 'string' ? parseJsonExact(text) : undefined;
      if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new TronNodeError(`${path}: the answer is not a JSON object`);
      }
      const answer = json as TronJson;
      // java-tron (and TronGrid when busy or rate limiting) answer HTTP 200 with `{"Error": …}`.
      const nodeError = answer['Error'] ?? answer['error'];
      if (nodeError !== undefined) {
        const text = String(nodeError).slice(0, 200);
        throw new TronNodeError(`${path}: ${text}`, RATE_LIMITED.test(text) ? { busy: {} } : {});
      }
      return answer;
    },
  };
}

/** `url` joined with `path` by one slash, as tronweb's HTTP client joins them. */
function endpoint(url: string, path: string): string {
  return `${url.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** An HTTP 429 (or any status whose `Error` names a rate limit) is busy, with its `Retry-After`. */
function busyAnswer(error: unknown): { busy?: NodeBusy } {
  const response = (error as { response?: { status?: number; data?: unknown; headers?: Record<string, unknown> } }).response;
  if (response === undefined) return {};
  const limited = response.status === 429 || (typeof response.data === 'string' && RATE_LIMITED.test(response.data.slice(0, 500)));
  if (!limited) return {};
  const retryAfter = response.headers?.['retry-after'];
  return { busy: typeof retryAfter === 'string' ? { retryAfter } : {} };
}

function describeHttpError(error: unknown): string {
  const e = error as { response?: { status?: number; statusText?: string }; code?: unknown; message?: unknown };
  if (e.response?.status !== undefined) return `HTTP ${e.response.status} ${e.response.statusText ?? ''}`.trim();
  if (typeof e.code === 'string') return `connection failed (${e.code})`;
  return typeof e.message === 'string' ? e.message : String(error);
}

/** Integer literals too long for a double, outside strings and not part of a decimal or exponent. */
const LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])(-?\d{16,})(?![\d.eE])/g;

/**
 * `JSON.parse` that keeps integers of 16+ digits exact by turning them into digit strings (string
 * literals are matched first, so digits inside them are untouched). `undefined` if not JSON.
 */
export function parseJsonExact(text: string): unknown {
  try {
    return JSON.parse(text.replace(LONG_INTEGER, (match, digits: string | undefined) => (digits === undefined ? match : `"${digits}"`)));
  } catch {
    return undefined;
  }
}

/** An int64 field (number or digit string) as a bigint; `undefined` when absent or malformed. */
export function int64(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}
