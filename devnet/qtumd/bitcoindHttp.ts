/**
 * JSON-RPC over HTTP the way bitcoind (and qtumd, a Bitcoin Core fork before JSON-RPC 2.0 support)
 * serves it (httprpc.cpp, rpc/request.cpp, rpc/server.cpp):
 * - POST only (`405 JSONRPC server handles only POST requests`); basic auth, else `401` with an
 *   empty body and `WWW-Authenticate: Basic realm="jsonrpc"` (bitcoind also waits 250 ms after a
 *   wrong password; the double does not, its tests run on loopback).
 * - A reply is `{"result":…,"error":null,"id":…}`; an error `{"result":null,"error":{"code":…,
 *   "message":…},"id":…}` with HTTP 400 for -32600, 404 for -32601 and 500 otherwise. A batch (an
 *   array) is answered with HTTP 200 and one reply per element.
 * - Params are positional, or named (an object) by the method's argument names.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';
import { closeServer, httpUrl, listen, LOOPBACK_HOST, readBody } from '../listening.ts';
import { QTUM_RPC } from './callContract.ts';

/** One RPC method: positional params in (named ones already placed), result out; throw a `DaemonRpcError` to refuse. */
export interface DaemonMethod {
  /** Argument names, in order (for named params and the arity check). */
  readonly args: readonly string[];
  /** How many leading args are required. */
  readonly required: number;
  /** The usage text bitcoind answers (code -1) when the arity is wrong. */
  readonly help: string;
  run(params: readonly unknown[]): Promise<unknown>;
}

export interface BitcoindHttpOptions {
  readonly user: string;
  readonly password: string;
  readonly methods: Readonly<Record<string, DaemonMethod>>;
  /** Called with the method of each authenticated call (batch elements one by one). */
  readonly onCall?: (method: string) => void;
  /** Called for every HTTP request, authenticated or not. */
  readonly onRequest?: () => void;
}

export interface BitcoindHttpServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

type Id = unknown;
type Reply = { result: unknown; error: { code: number; message: string } | null; id: Id };

const MAX_BODY_BYTES = 1024 * 1024;
const rpcError = (code: number, message: string) => new DaemonRpcError(message, code, '');

export async function startBitcoindHttp(options: BitcoindHttpOptions): Promise<BitcoindHttpServer> {
  const expected = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    options.onRequest?.();
    void respond(req, res, expected, options);
  });
  const port = await listen(server, LOOPBACK_HOST, 0);
  let stopping: Promise<void> | undefined;
  return { url: httpUrl(LOOPBACK_HOST, port), port, stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())) };
}

async function respond(req: IncomingMessage, res: ServerResponse, expected: string, options: BitcoindHttpOptions): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return void res.writeHead(405, { 'content-type': 'text/html; charset=ISO-8859-1' }).end('JSONRPC server handles only POST requests');
  }
  if (req.headers.authorization !== expected) {
    req.resume();
    return void res.writeHead(401, { 'www-authenticate': 'Basic realm="jsonrpc"' }).end();
  }
  let payload: unknown;
  try {
    payload = JSON.parse(await readBody(req, MAX_BODY_BYTES));
  } catch {
    return send(res, failure(rpcError(QTUM_RPC.parseError, 'Parse error'), null));
  }
  if (Array.isArray(payload)) {
    const replies = await Promise.all(payload.map((element) => execute(element, options).catch((error: unknown) => failure(error, idOf(element)))));
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(replies)}\n`);
  }
  if (typeof payload !== 'object' || payload === null) return send(res, failure(rpcError(QTUM_RPC.parseError, 'Top-level object parse error'), null));
  try {
    send(res, await execute(payload, options));
  } catch (error) {
    send(res, failure(error, idOf(payload)));
  }
}

/** One request object → its reply (rpc/request.cpp `JSONRPCRequest::parse`, then the method table). */
async function execute(request: unknown, options: BitcoindHttpOptions): Promise<Reply> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) throw rpcError(QTUM_RPC.invalidRequest, 'Invalid Request object');
  const { method, params } = request as { method?: unknown; params?: unknown };
  if (method === undefined || method === null) throw rpcError(QTUM_RPC.invalidRequest, 'Missing method');
  if (typeof method !== 'string') throw rpcError(QTUM_RPC.invalidRequest, 'Method must be a string');
  if (params !== undefined && params !== null && typeof params !== 'object') throw rpcError(QTUM_RPC.invalidRequest, 'Params must be an array or object');
  options.onCall?.(method);
  const entry = Object.hasOwn(options.methods, method) ? options.methods[method] : undefined;
  if (entry === undefined) throw rpcError(QTUM_RPC.methodNotFound, 'Method not found');
  const positional = Array.isArray(params) ? params : placeNamed(entry, (params ?? {}) as Record<string, unknown>);
  const given = positional.length;
  if (given < entry.required || given > entry.args.length) throw rpcError(QTUM_RPC.miscError, entry.help);
  return { result: await entry.run(positional), error: null, id: idOf(request) };
}

/** rpc/server.cpp `transformNamedArguments`: named params to positions, trailing unset ones dropped. */
function placeNamed(method: DaemonMethod, named: Record<string, unknown>): unknown[] {
  for (const name of Object.keys(named)) {
    if (!method.args.includes(name)) throw rpcError(QTUM_RPC.invalidParameter, `Unknown named parameter ${name}`);
  }
  const placed = method.args.map((name) => named[name] ?? null);
  while (placed.length > 0 && placed.at(-1) === null) placed.pop();
  return placed;
}

function idOf(request: unknown): Id {
  return typeof request === 'object' && request !== null && 'id' in request ? (request as { id: unknown }).id : null;
}

/** A refusal as bitcoind words it; anything unexpected becomes RPC_MISC_ERROR with its message. */
function failure(error: unknown, id: Id): Reply {
  const known = error instanceof DaemonRpcError && error.code !== undefined;
  const code = known ? error.code! : QTUM_RPC.miscError;
  return { result: null, error: { code, message: error instanceof Error ? error.message : String(error) }, id };
}

/** httprpc.cpp `JSONErrorReply`: the HTTP status follows the error code. */
function send(res: ServerResponse, reply: Reply): void {
  const code = reply.error?.code;
  const status = code === undefined ? 200 : code === QTUM_RPC.invalidRequest ? 400 : code === QTUM_RPC.methodNotFound ? 404 : 500;
  res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(reply)}\n`);
}
