/**
 * A JSON-RPC node that can say "busy", for rate-limit tests: an HTTP proxy in front of a real node
 * (e.g. the EVM devnet) that forwards every request until told to refuse them, the ways public
 * providers do: HTTP 429, a JSON-RPC -32005 error for the whole batch, or for one call in it.
 */
import { createServer } from 'node:http';
import { closeServer, httpUrl, listen, LOOPBACK_HOST, readBody } from '../listening.ts';

export const BusyMode = {
  /** Forward everything. */
  Off: 'off',
  /** HTTP 429 Too Many Requests, nothing forwarded. */
  Http429: 'http429',
  /** HTTP 200 with one JSON-RPC error object (-32005) for the whole body, nothing forwarded. */
  RpcBatch: 'rpcBatch',
  /** Forwarded, but the answer to the first call of `method` becomes a -32005 error. */
  RpcCall: 'rpcCall',
} as const;
export type BusyMode = (typeof BusyMode)[keyof typeof BusyMode];

export interface BusyBehaviour {
  readonly mode: BusyMode;
  /** Sent as the `Retry-After` header of busy answers (seconds or an HTTP date); none when absent. */
  readonly retryAfter?: string;
  /** For `RpcCall`: the method whose answer is refused. Default `eth_blockNumber` (in every EVM read; balances may go through a multicall). */
  readonly method?: string;
}

export interface BusyNode {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** HTTP requests received (busy answers included). */
  requests(): number;
  setBehaviour(behaviour: BusyBehaviour): void;
  /** Closes the listener and drops its connections. Idempotent. */
  stop(): Promise<void>;
}

const RATE_LIMITED = { code: -32005, message: 'rate limit exceeded' } as const;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Starts the proxy in front of `target` (a JSON-RPC URL on loopback), initially `behaviour`. */
export async function startBusyNode(options: { target: string; behaviour?: BusyBehaviour; host?: string }): Promise<BusyNode> {
  let behaviour: BusyBehaviour = options.behaviour ?? { mode: BusyMode.Off };
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    void (async () => {
      const body = await readBody(req, MAX_BODY_BYTES);
      const current = behaviour;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (current.mode !== BusyMode.Off && current.retryAfter !== undefined) headers['retry-after'] = current.retryAfter;
      if (current.mode === BusyMode.Http429) return res.writeHead(429, headers).end('{"error":"too many requests"}');
      if (current.mode === BusyMode.RpcBatch) {
        return res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: RATE_LIMITED }));
      }
      const forwarded = await fetch(options.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await forwarded.text();
      const answer = current.mode === BusyMode.RpcCall ? refuseOneCall(body, text, current.method ?? 'eth_blockNumber') : text;
      res.writeHead(forwarded.status, headers).end(answer);
    })().catch(() => res.destroy());
  });
  const host = options.host ?? LOOPBACK_HOST;
  const port = await listen(server, host, 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port),
    requests: () => requests,
    setBehaviour: (next) => {
      behaviour = next;
    },
    stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())),
  };
}

/** The answer with the first call of `method` (found by its id in the request) refused for a rate limit. */
function refuseOneCall(requestText: string, answerText: string, method: string): string {
  const request = JSON.parse(requestText) as unknown;
  const calls = (Array.isArray(request) ? request : [request]) as { id?: unknown; method?: unknown }[];
  const target = calls.find((c) => c.method === method);
  if (target === undefined) return answerText;
  const answer = JSON.parse(answerText) as unknown;
  const refuse = (r: { id?: unknown }) => (r.id === target.id ? { jsonrpc: '2.0', id: r.id, error: RATE_LIMITED } : r);
  return JSON.stringify(Array.isArray(answer) ? (answer as { id?: unknown }[]).map(refuse) : refuse(answer as { id?: unknown }));
}
