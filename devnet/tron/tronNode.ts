/**
 * A TRON full node's HTTP API on loopback, backed by the in-process EVM devnet: `/wallet/*` and
 * `/walletsolidity/*` (GET with a query or POST with JSON), enough for tronweb and behaviour notes
 * §11. TRX balances are the EVM native balances with 1 SUN = 1 wei; TRC20 calls run the real
 * bytecode through `eth_call`. TRON addresses (`T…` or `41…`) name the same 20-byte EVM accounts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { closeServer, httpUrl, listen, LOOPBACK_HOST, readBody } from '../listening.ts';
import { TRON_ENDPOINTS, type TronEndpointContext } from './tronEndpoints.ts';
import { tronErrorBody } from './tronErrors.ts';
import { tronToEvmAddress } from './tronAddress.ts';
import { flag, parseTronParams, toTronJson } from './tronJson.ts';
import { TronResourceBook, type TronAccountResources } from './tronResources.ts';

/** How a busy node answers every request: an HTTP status and a JSON body. */
export interface TronBusyReply {
  /** Default 503. Public nodes also answer 200 with `{"Error": …}` or 429. */
  status?: number;
  /** Default `{ Error: 'The server is busy, please try again later' }`. */
  body?: unknown;
  /** A `Retry-After` header (seconds or an HTTP date). Default: none. */
  retryAfter?: string;
}

export interface TronNodeOptions {
  /** The backing chain, e.g. an `EvmDevnet` (only `request` is used). */
  evm: { request: EvmRequest };
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Start busy (see {@link TronNode.setBusy}). Default false. */
  busy?: boolean | TronBusyReply;
}

export interface TronNode {
  /** `http://127.0.0.1:<port>`, the `fullHost` for tronweb. */
  url: string;
  /** `METHOD /path` of every request received, in order (busy answers included). */
  readonly hits: readonly string[];
  /** `true`/a reply: answer every request with that reply (default 503); `false`: serve normally. */
  setBusy(busy: boolean | TronBusyReply): void;
  /** Sets an account's staked bandwidth/energy or used amounts (EVM, `T…` or `41…` address). */
  setResources(address: string, values: Partial<TronAccountResources>): void;
  /** Closes the listener and drops its connections. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_BUSY: TronBusyReply & Required<Pick<TronBusyReply, 'status' | 'body'>> = { status: 503, body: { Error: 'The server is busy, please try again later' } };
type Busy = typeof DEFAULT_BUSY;
const MAX_BODY_BYTES = 1024 * 1024;

/** Starts the node; resolves once it is listening. */
export async function startTronNode(options: TronNodeOptions): Promise<TronNode> {
  const host = options.host ?? LOOPBACK_HOST;
  const context: TronEndpointContext = { evm: options.evm.request, activated: new Set(), resources: new TronResourceBook(), transactions: new Map() };
  const hits: string[] = [];
  let busy = toBusy(options.busy ?? false);
  const server = createServer((req, res) => {
    hits.push(`${req.method ?? '?'} ${(req.url ?? '/').split('?')[0]}`);
    void respond(req, res, context, busy);
  });
  const port = await listen(server, host, options.port ?? 0);
  let stopping: Promise<void> | undefined;
  return {
    url: httpUrl(host, port),
    hits,
    setResources: (address, values) => context.resources.set(tronToEvmAddress(address) ?? address, values),
    setBusy: (next) => {
      busy = toBusy(next);
    },
    stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())),
  };
}

function toBusy(busy: boolean | TronBusyReply): Busy | undefined {
  if (busy === false) return undefined;
  return busy === true ? DEFAULT_BUSY : { ...DEFAULT_BUSY, ...busy };
}

async function respond(req: IncomingMessage, res: ServerResponse, context: TronEndpointContext, busy: Busy | undefined): Promise<void> {
  let body: string;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    return send(res, 413, toTronJson({ Error: (error as Error).message }));
  }
  if (busy) return send(res, busy.status, toTronJson(busy.body), busy.retryAfter === undefined ? {} : { 'retry-after': busy.retryAfter });
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = TRON_ENDPOINTS[path];
  if (endpoint === undefined) return send(res, 404, toTronJson({ Error: `no such endpoint: ${path}` }));
  if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, toTronJson({ Error: `${req.method ?? ''} not allowed` }));
  let params;
  try {
    params = parseTronParams(url.searchParams, req.method === 'POST' ? body : '');
  } catch (error) {
    return send(res, 200, toTronJson(tronErrorBody(error)));
  }
  try {
    return send(res, 200, toTronJson(await endpoint(params, context), flag(params, 'int64_as_string')));
  } catch (error) {
    return send(res, 200, toTronJson(tronErrorBody(error)));
  }
}


function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
