/**
 * A native coin daemon's wallet RPC (bitcoind's JSON-RPC 1.0 over HTTP basic auth) for any coin:
 * its wallet watches every address and holds no coins. It stands in for the daemons of the coins
 * file's UTXO coins, which cannot all run here; `litecoind` (devnet/litecoind) is the real one.
 * Answers as bitcoind does: `getblockcount`, `getaddressinfo` / `validateaddress` (watch-only,
 * `isvalid` true for any non-empty string), `listunspent` (always `[]`); with an EVM, also Qtum's
 * `callcontract` for QRC20 tokens, run there as the Qtum daemon double runs it
 * (devnet/qtumd/callContract.ts); an unknown method is HTTP 404 with RPC error -32601, a wrong
 * login HTTP 401 with an empty body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, LOOPBACK_HOST, readBody } from '../listening.ts';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { callContract, stringParam } from '../qtumd/callContract.ts';
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';

export interface WatchAllDaemonOptions {
  readonly user: string;
  readonly password: string;
  /** What `getblockcount` answers (default 1). */
  readonly height?: number;
  /** Where `callcontract` runs (e.g. an `EvmDevnet`); without it the method is unknown. */
  readonly evm?: { readonly request: EvmRequest };
}

export interface WatchAllDaemon {
  readonly port: number;
  /** `method address` of every authenticated call, in order. */
  readonly calls: readonly string[];
  /** Closes the listener and its connections. Idempotent. */
  stop(): Promise<void>;
}

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -8;
const MAX_BODY_BYTES = 64 * 1024;

type Reply = { status: number; result?: unknown; error?: { code: number; message: string } };

async function answer(method: string, params: unknown[], options: WatchAllDaemonOptions): Promise<Reply> {
  const address = params[0];
  switch (method) {
    case 'getblockcount':
      return { status: 200, result: options.height ?? 1 };
    case 'getaddressinfo':
    case 'validateaddress':
      if (typeof address !== 'string' || address === '') return { status: 500, error: { code: INVALID_PARAMS, message: 'Invalid address' } };
      return { status: 200, result: { isvalid: true, address, ismine: false, iswatchonly: true, solvable: false } };
    case 'listunspent':
      return { status: 200, result: [] };
    case 'callcontract':
      if (options.evm !== undefined) return contractCall(options.evm.request, params);
  }
  return { status: 404, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
}

async function contractCall(evm: EvmRequest, params: unknown[]): Promise<Reply> {
  try {
    const [to, data, sender] = [params[0], params[1], params[2] ?? ''].map((p) => stringParam(p, 'callcontract')) as [string, string, string];
    return { status: 200, result: await callContract(evm, to, data, sender) };
  } catch (error) {
    if (!(error instanceof DaemonRpcError) || error.code === undefined) throw error;
    return { status: 500, error: { code: error.code, message: error.message } };
  }
}

/** Starts the double on 127.0.0.1 (a free port). */
export async function startWatchAllDaemon(options: WatchAllDaemonOptions): Promise<WatchAllDaemon> {
  const authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  const calls: string[] = [];
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req, MAX_BODY_BYTES).catch(() => undefined);
    if (req.headers.authorization !== authorization) return res.writeHead(401).end();
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(body ?? '');
    } catch {
      return res.writeHead(500, { 'content-type': 'application/json' }).end('{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}');
    }
    const method = typeof request.method === 'string' ? request.method : '';
    const params = Array.isArray(request.params) ? request.params : [];
    calls.push(`${method} ${typeof params[0] === 'string' ? params[0] : ''}`.trim());
    const reply = await answer(method, params, options);
    const json = JSON.stringify({ result: reply.result ?? null, error: reply.error ?? null, id: request.id ?? null });
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(json);
  };
  const server = createServer((req, res) => void respond(req, res));
  const port = await listen(server, LOOPBACK_HOST, 0);
  let stopping: Promise<void> | undefined;
  return { port, calls, stop: () => (stopping ??= closeServer(server, () => server.closeAllConnections())) };
}
