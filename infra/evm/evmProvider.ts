import { FetchRequest, JsonRpcProvider, Network } from 'ethers';
import { X_AUTH_PAYLOAD, type ProxySigner } from '../gatewayProxy/proxySign.ts';
import { EvmNodeError } from './evmNodeError.ts';
import { isRateLimitError } from '../failover/busyNodes.ts';
import type { WsPool } from './wsPool.ts';

export { EvmNodeError };

/** Sends one JSON-RPC body (a call or a batch) to a node; resolves with the answer's bytes. */
export type JsonRpcSend = (body: Uint8Array) => Promise<Uint8Array>;

export interface EvmProviderOptions {
  /** The node's URL (named in ethers' own errors, which never reach a client). */
  readonly url: string;
  readonly chainId: number;
  /** Most JSON-RPC calls in one request; larger sets go out as concurrent chunks. */
  readonly batchSize: number;
  /** How a request reaches the node: {@link httpSend} or {@link wsSend}. */
  readonly send: JsonRpcSend;
}

/**
 * An ethers v6 `JsonRpcProvider` for one node and one unit of work. Calls sent in the same tick go
 * out as one JSON-RPC batch (`batchStallTime: 0`), the network is static (no `eth_chainId` probe),
 * ethers' own 429 retry loop is off (a busy node is skipped until its `Retry-After`; failover
 * decides), and every request goes through `send`, over HTTP or a WebSocket alike.
 */
export function createEvmProvider(options: EvmProviderOptions): JsonRpcProvider {
  const request = new FetchRequest(options.url);
  request.timeout = 24 * 60 * 60 * 1000; // the failover's per-node timer governs, not ethers
  request.setThrottleParams({ maxAttempts: 1 });
  request.getUrlFunc = async (req) => {
    const body = await options.send(req.body ?? new Uint8Array(0));
    return { statusCode: 200, statusMessage: 'OK', headers: {}, body };
  };
  return new JsonRpcProvider(request, Network.from(options.chainId), {
    staticNetwork: true,
    batchMaxCount: options.batchSize,
    batchMaxSize: Number.MAX_SAFE_INTEGER,
    batchStallTime: 0,
    polling: false,
    cacheTimeout: -1,
  });
}

/**
 * POSTs to an HTTP(S) node; `signal` aborts the request. With `signer` (a gateway-proxy node) each
 * request carries its signed `X-Auth-Payload`. A non-2xx answer is an {@link EvmNodeError}, a busy
 * one (HTTP 429, a rate-limit error for the batch or any call in it) with its `Retry-After`.
 */
export function httpSend(url: string, signal: AbortSignal, signer?: ProxySigner): JsonRpcSend {
  return async (body) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (signer !== undefined) headers[X_AUTH_PAYLOAD] = JSON.stringify(signer.sign(url, body.length));
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: Buffer.from(body),
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const code = (error as { cause?: { code?: string } }).cause?.code;
      throw new EvmNodeError(code ? `connection failed (${code})` : 'connection failed', { cause: error });
    }
    const answer = new Uint8Array(await response.arrayBuffer());
    const retryAfter = response.headers.get('retry-after') ?? undefined;
    const status = `HTTP ${response.status} ${response.statusText}`.trim();
    if (response.status === 429) throw new EvmNodeError(status, { busy: { retryAfter } });
    if (!response.ok) throw new EvmNodeError(status);
    return throwIfRateLimited(answer, retryAfter);
  };
}

/**
 * Sends over the coin's socket to a `ws(s)://` node (opened on first use, see {@link WsPool});
 * `signal` abandons the request. With `signer` each call carries its signature as a `proxy_sign`
 * member, signed over the call as it would be sent without it, as the reference does.
 */
export function wsSend(url: string, sockets: WsPool, signal: AbortSignal, signer?: ProxySigner): JsonRpcSend {
  const frame =
    signer === undefined
      ? undefined
      : (text: string) => {
          if (!text.startsWith('{')) throw new Error('a gateway-proxy node takes one call per message'); // batchSize 1
          const proxySign = JSON.stringify(signer.sign(url, Buffer.byteLength(text)));
          return `${text.slice(0, -1)},"proxy_sign":${proxySign}}`;
        };
  return async (body) => {
    const channel = await sockets.channel(url, signal);
    return throwIfRateLimited(new TextEncoder().encode(await channel.request(Buffer.from(body).toString('utf8'), signal, frame)));
  };
}

/**
 * A JSON-RPC answer that refuses the batch, or any call in it, for a rate limit (-32005 or a
 * "rate limit" message) makes the node busy: the other calls' answers cannot be trusted to come
 * back on retry from the same node, so the whole request moves to the next node.
 */
function throwIfRateLimited(answer: Uint8Array, retryAfter?: string): Uint8Array {
  const text = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength).toString('utf8');
  if (!text.includes('"error"')) return answer; // the common case: no error to look at
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return answer; // ethers reports the malformed body
  }
  const refused = (Array.isArray(payload) ? payload : [payload]).find((element) => isRateLimitError((element as { error?: unknown } | null)?.error));
  if (refused === undefined) return answer;
  const { code, message } = (refused as { error: { code?: unknown; message?: unknown } }).error;
  throw new EvmNodeError(`rate limited: ${String(message).slice(0, 120)} (code ${String(code)})`, { busy: { retryAfter } });
}
