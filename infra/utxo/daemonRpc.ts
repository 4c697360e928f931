/**
 * A JSON-RPC 1.0 client for bitcoind-style daemons (komodod, litecoind, …): HTTP POST with basic
 * auth. Used by native `enable` and by the devnet.
 */
import { Agent, request } from 'node:http';
import { parseRpcJsonExact } from './daemonAmounts.ts';

/** Where a daemon's RPC listens and how to log in. */
export interface RpcEndpoint {
  /** `http://127.0.0.1:<port>` (optionally with a `/wallet/<name>` path). */
  url: string;
  user: string;
  password: string;
}

/**
 * Calls one RPC method; resolves with its `result`, rejects with {@link DaemonRpcError}, or with
 * the abort reason when `signal` aborts (the HTTP request is destroyed).
 */
export type RpcCall = <T = unknown>(method: string, params?: readonly unknown[], signal?: AbortSignal) => Promise<T>;

/** The daemon answered with a JSON-RPC error (`code` is e.g. -5 for an unknown txid), or not at all. */
export class DaemonRpcError extends Error {
  constructor(
    message: string,
    /** The daemon's RPC error code; undefined for HTTP or transport failures. */
    readonly code: number | undefined,
    readonly method: string,
  ) {
    super(message);
    this.name = 'DaemonRpcError';
  }
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Returns a caller for `endpoint`. `parse` reads the response body; pass `parseRpcJsonExact`
 * (amounts.ts) to keep amounts exact.
 */
export function createRpcClient(endpoint: RpcEndpoint, parse: (text: string) => unknown = JSON.parse): RpcCall {
  const authorization = `Basic ${Buffer.from(`${endpoint.user}:${endpoint.password}`).toString('base64')}`;
  let nextId = 0;
  return async <T>(method: string, params: readonly unknown[] = [], signal?: AbortSignal): Promise<T> => {
    const body = JSON.stringify({ jsonrpc: '1.0', id: ++nextId, method, params });
    let response: { status: number; text: string };
    try {
      response = await post(endpoint.url, authorization, body, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new DaemonRpcError(`${method}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, undefined, method);
    }
    const { status, text } = response;
    // bitcoind answers RPC errors with HTTP 500 (or 404 for an unknown method) and a JSON body.
    let reply: { result?: unknown; error?: { code?: number; message?: string } | null } | undefined;
    try {
      reply = text.length > 0 ? (parse(text) as typeof reply) : undefined;
    } catch {
      reply = undefined;
    }
    if (reply?.error) throw new DaemonRpcError(reply.error.message ?? `${method} failed`, reply.error.code, method);
    if (status !== 200 || reply === undefined) {
      throw new DaemonRpcError(`${method}: HTTP ${status} ${text.slice(0, 200)}`.trim(), undefined, method);
    }
    return reply.result as T;
  };
}

/**
 * A caller for a started node (e.g. a `Litecoind`). With `exactAmounts`, amount fields come back
 * as exact decimal strings (see amounts.ts) instead of JS numbers.
 */
export function nodeRpc(node: { rpcUrl: string; rpcUser: string; rpcPassword: string }, options: { exactAmounts?: boolean } = {}): RpcCall {
  const endpoint = { url: node.rpcUrl, user: node.rpcUser, password: node.rpcPassword };
  return createRpcClient(endpoint, options.exactAmounts ? parseRpcJsonExact : JSON.parse);
}

/**
 * No keep-alive: bitcoind's shutdown waits for idle keep-alive connections to close, so a pooled
 * socket (fetch keeps one 4 s) would delay every `stop` by that long. Loopback connects are cheap.
 */
const NO_KEEP_ALIVE = new Agent({ keepAlive: false });

function post(url: string, authorization: string, body: string, signal: AbortSignal | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: NO_KEEP_ALIVE, timeout: DEFAULT_TIMEOUT_MS, ...(signal ? { signal } : {}), headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DEFAULT_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
