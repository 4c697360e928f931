/**
 * HTTP transport of the dispatcher (behaviour notes §1): `POST /` with a JSON body, `OPTIONS`
 * answered as a CORS preflight, a bounded body, the remote address as the caller id, and a graceful
 * close that lets in-flight requests finish.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from './dispatcher.ts';
import { consoleLog, type RpcLog } from './log.ts';

export interface HttpServerOptions {
  /** Address to bind, e.g. `127.0.0.1` (the reference's `rpcip` default). */
  readonly host: string;
  /** Port to bind; 0 picks a free one (the reference's `rpcport` default is 7783). */
  readonly port: number;
  readonly dispatcher: Dispatcher;
  /** Largest accepted body; larger ones get 413 without being read. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  readonly log?: RpcLog;
  /** `Access-Control-Allow-Origin` value (the reference's `rpccors`, default `http://localhost:3000`). */
  readonly corsOrigin?: string;
  /** How long `close()` waits for in-flight requests before cutting connections. Default 5 s. */
  readonly closeGraceMs?: number;
}

export interface RunningHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:7783`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests answer (up to `closeGraceMs`), then resolves. */
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
/** Strict decoding, as the reference's JSON parser: invalid UTF-8 is refused, not replaced. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

type BodyRead = { readonly ok: true; readonly body: Buffer } | { readonly ok: false; readonly reason: 'too-large' | 'aborted' };

/** Reads at most `max` bytes; past that it stops reading (and buffering) at once. */
function readBody(req: http.IncomingMessage, max: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead): void => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        finish({ ok: false, reason: 'too-large' });
      } else chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onAbort = (): void => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

/** `::ffff:127.0.0.1` → `127.0.0.1`; the port is not part of the id (lockout is per address). */
export function clientIdOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
}

/**
 * Starts the HTTP server and resolves once it listens.
 * Routes: `OPTIONS /` → 200 preflight; `POST /` → dispatcher; other methods on `/` → 405;
 * other paths → 404; body over `maxBodyBytes` → 413 (connection closed).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { dispatcher } = options;
  const maxBodyBytes = options.maxBodyBytes ?? MiB;
  const log = options.log ?? consoleLog;
  const cors = options.corsOrigin ?? 'http://localhost:3000';
  const graceMs = options.closeGraceMs ?? 5_000;
  let closing = false;

  const send = (res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void => {
    let text: string;
    try {
      text = JSON.stringify(body) ?? 'null';
    } catch (e) {
      log.error('rpc response is not serialisable', { error: e instanceof Error ? e.message : String(e) });
      status = 500;
      text = JSON.stringify({ error: 'Internal error' });
    }
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'Access-Control-Allow-Origin': cors,
      ...extra,
    };
    if (closing) headers.Connection = 'close';
    res.writeHead(status, headers).end(text);
  };

  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      return send(res, 400, { error: 'Bad request target' });
    }
    if (pathname !== '/') return send(res, 404, { error: 'Not found' });
    if (req.method === 'OPTIONS') {
      res.writeHead(200, {
        'Access-Control-Allow-Origin': cors,
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type',
        'Access-Control-Max-Age': '3600',
        'Content-Length': 0,
        ...(closing ? { Connection: 'close' } : {}),
      });
      return void res.end();
    }
    if (req.method !== 'POST') {
      return send(res, 405, { error: 'Only POST requests are supported!' }, { Allow: 'POST, OPTIONS' });
    }
    const tooLarge = { error: `Request body is larger than ${maxBodyBytes} bytes` };
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return send(res, 413, tooLarge, { Connection: 'close' });
    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') send(res, 413, tooLarge, { Connection: 'close' });
      return;
    }
    let text: string;
    try {
      text = utf8.decode(read.body);
    } catch {
      return send(res, 500, { error: 'The request body is not valid UTF-8' });
    }
    const answer = await dispatcher.handle(text, { clientId: clientIdOf(req.socket.remoteAddress) });
    send(res, answer.status, answer.body);
  };

  const server = http.createServer((req, res) => {
    onRequest(req, res).catch((e: unknown) => {
      log.error('http request failed', { error: e instanceof Error ? e.message : String(e) });
      if (!res.headersSent) send(res, 500, { error: 'Internal error' });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  log.info('rpc listening', { host: options.host, port });

  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
