/**
 * JSON-RPC 2.0 over HTTP and over WebSocket (same port, like geth's) in front of any
 * `(method, params) => Promise<result>` handler. Batches are answered element by element, in order
 * (one array per batch, also on a socket: one text frame in, one out).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeServer, httpUrl, listen, LOOPBACK_HOST, readBody } from '../listening.ts';
import { toJsonRpcError, type JsonRpcErrorObject } from './jsonRpcErrors.ts';

/** Runs one JSON-RPC call; a throw becomes a per-call JSON-RPC error. */
export type JsonRpcHandler = (method: string, params: unknown[] | undefined) => Promise<unknown>;

export interface JsonRpcServerOptions {
  handle: JsonRpcHandler;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
}

export interface JsonRpcServer {
  url: string;
  /** `ws://host:port`: the same JSON-RPC over a WebSocket. */
  wsUrl: string;
  /** WebSocket connections accepted since start, and those open now. */
  webSockets(): { accepted: number; open: number };
  /** Sends `head` to every socket's `eth_subscribe("newHeads")` subscriptions (as geth's `eth_subscription` notifications). */
  notifyNewHead(head: Record<string, unknown>): void;
  /** `newHeads` subscriptions open now, over all sockets. */
  headSubscriptions(): number;
  /** Closes the listener and destroys keep-alive connections. Idempotent. */
  stop(): Promise<void>;
}

type JsonRpcId = string | number | null;
type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject };

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const JSON_RPC_CODES = { parseError: -32700, invalidRequest: -32600 } as const;

/** Serves `handle` on `http://host:port/` (any path, POST only). */
export async function startJsonRpcServer(options: JsonRpcServerOptions): Promise<JsonRpcServer> {
  const host = options.host ?? LOOPBACK_HOST;
  const server = createServer((req, res) => {
    void respond(req, res, options.handle);
  });
  const sockets = new Set<WebSocket>();
  /** Each socket's `newHeads` subscription ids. */
  const heads = new Map<WebSocket, Set<string>>();
  let accepted = 0;
  let nextSubscription = 0;
  new WebSocketServer({ server, maxPayload: MAX_BODY_BYTES }).on('connection', (ws) => {
    accepted += 1;
    sockets.add(ws);
    const subscriptions = new Set<string>();
    heads.set(ws, subscriptions);
    ws.on('close', () => (sockets.delete(ws), heads.delete(ws)));
    ws.on('error', () => {});
    // Subscriptions belong to the socket: answered here, everything else by the chain.
    const handle: JsonRpcHandler = async (method, params) => {
      if (method === 'eth_subscribe') {
        if (params?.[0] !== 'newHeads') throw new Error(`unsupported subscription ${JSON.stringify(params?.[0])}`);
        const id = `0x${(++nextSubscription).toString(16)}`;
        subscriptions.add(id);
        return id;
      }
      if (method === 'eth_unsubscribe') return subscriptions.delete(String(params?.[0]));
      return options.handle(method, params);
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      void answerBody(data.toString(), handle).then(({ body }) => {
        if (body !== undefined && ws.readyState === ws.OPEN) ws.send(serialize(body));
      });
    });
  });
  const port = await listen(server, host, options.port ?? 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port),
    wsUrl: httpUrl(host, port).replace(/^http/, 'ws'),
    webSockets: () => ({ accepted, open: sockets.size }),
    notifyNewHead: (head) => {
      for (const [ws, ids] of heads) {
        for (const subscription of ids) {
          if (ws.readyState === ws.OPEN) ws.send(serialize({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result: head } }));
        }
      }
    },
    headSubscriptions: () => [...heads.values()].reduce((n, ids) => n + ids.size, 0),
    stop: () =>
      (stopping ??= closeServer(server, () => {
        server.closeAllConnections();
        for (const ws of sockets) ws.terminate();
      })),
  };
}

async function respond(req: IncomingMessage, res: ServerResponse, handle: JsonRpcHandler): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return send(res, 405, errorResponse(null, JSON_RPC_CODES.invalidRequest, 'JSON-RPC requests must be POSTed'));
  }
  let body: string;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    return send(res, 413, errorResponse(null, JSON_RPC_CODES.invalidRequest, (error as Error).message));
  }
  const reply = await answerBody(body, handle);
  return reply.body === undefined ? send(res, 204) : send(res, 200, reply.body);
}

/** The answer to a JSON-RPC body (a call or a batch); `undefined` when only notifications came. */
async function answerBody(body: string, handle: JsonRpcHandler): Promise<{ body: JsonRpcResponse | JsonRpcResponse[] | undefined }> {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch (error) {
    return { body: errorResponse(null, JSON_RPC_CODES.parseError, `Parse error: ${(error as Error).message}`) };
  }
  if (!Array.isArray(payload)) return { body: await answer(payload, handle) };
  if (payload.length === 0) return { body: errorResponse(null, JSON_RPC_CODES.invalidRequest, 'Invalid Request: empty batch') };
  // Elements are started together (as busy public nodes do) and answered in request order.
  const answered = await Promise.all(payload.map((element) => answer(element, handle)));
  const responses = answered.filter((r): r is JsonRpcResponse => r !== undefined);
  return { body: responses.length > 0 ? responses : undefined };
}

/** Answers one request object; notifications (no `id` member) run but get no response. */
async function answer(request: unknown, handle: JsonRpcHandler): Promise<JsonRpcResponse | undefined> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return errorResponse(null, JSON_RPC_CODES.invalidRequest, 'Invalid Request: not an object');
  }
  const { id, method, params } = request as { id?: unknown; method?: unknown; params?: unknown };
  const isNotification = !('id' in request);
  const replyId: JsonRpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (!isNotification && replyId === null && id !== null) {
    return errorResponse(null, JSON_RPC_CODES.invalidRequest, 'Invalid Request: id must be a string, number or null');
  }
  if (typeof method !== 'string') {
    return errorResponse(replyId, JSON_RPC_CODES.invalidRequest, 'Invalid Request: method must be a string');
  }
  if (params !== undefined && !Array.isArray(params)) {
    return errorResponse(replyId, JSON_RPC_CODES.invalidRequest, 'Invalid Request: params must be an array');
  }
  let response: JsonRpcResponse;
  try {
    response = { jsonrpc: '2.0', id: replyId, result: (await handle(method, params)) ?? null };
  } catch (error) {
    response = { jsonrpc: '2.0', id: replyId, error: toJsonRpcError(error) };
  }
  return isNotification ? undefined : response;
}

function errorResponse(id: JsonRpcId, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}


function send(res: ServerResponse, status: number, body?: unknown): void {
  if (res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = serialize(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** JSON with bigints as hex quantities. */
function serialize(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value));
}
