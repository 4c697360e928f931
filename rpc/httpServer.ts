/**
 * HTTP transport of the dispatcher (docs/compatibility.md §1): `POST /` with a JSON body, `OPTIONS`
 * answered as a CORS preflight, a bounded body, the remote address as the caller id, and a graceful
 * close that lets in-flight requests finish.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DispatchResult, Dispatcher } from './dispatcher.ts';
import { consoleLog, type Log } from '../kernel/log.ts';
import { answerText, resultText } from './json.ts';
import { bodyTooLarge, decodeUtf8, DEFAULT_MAX_BODY_BYTES, NOT_UTF8 } from './limits.ts';
import { loadDashboard, sendDashboardFile } from './dashboardPage.ts';

/**
 * A route beside the RPC (e.g. the event streams): handles the request and returns true, or returns
 * false to leave it to the next route and finally to the RPC's own routing.
 */
export type HttpRoute = (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => boolean;

export interface HttpServerOptions {
  /** Address to bind, e.g. `127.0.0.1` (the reference's `rpcip` default). */
  readonly host: string;
  /** Port to bind; 0 picks a free one (the reference's `rpcport` default is 7783). */
  readonly port: number;
  readonly dispatcher: Dispatcher;
  /**
   * Largest accepted body; larger ones get 413 without being read.
   * @default 1 MiB ({@link DEFAULT_MAX_BODY_BYTES})
   */
  readonly maxBodyBytes?: number;
  readonly log?: Log;
  /** `Access-Control-Allow-Origin` value (the reference's `rpccors`, default `http://localhost:3000`). */
  readonly corsOrigin?: string;
  /** Routes tried, in order, before `/` (docs/streaming.md). */
  readonly routes?: readonly HttpRoute[];
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

/**
 * Reads at most `max` bytes, then calls `done` once with the body, or with `undefined` when it was
 * too large (reading stops at once). An aborted request never calls `done` (Node emits no `error`
 * on a request without `error` listeners). Callbacks, not a Promise: this runs for every request.
 */
function readBody(req: http.IncomingMessage, max: number, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (size > max) return;
    size += chunk.length;
    if (size > max) {
      req.pause();
      done(undefined);
    } else chunks.push(chunk);
  });
  req.on('end', () => {
    if (size <= max) done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
}

/**
 * What Node's parser refuses before a request exists (a malformed request line or header, headers
 * too large) gets a JSON body too, with the status Node would send: 431, 408 or 400.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
  const body = JSON.stringify({ error: reason });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
}

/** `::ffff:127.0.0.1` → `127.0.0.1`; the port is not part of the id (lockout is per address). */
export function clientIdOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
}

/**
 * Starts the HTTP server and resolves once it listens.
 * Routes: `OPTIONS /` → 200 preflight; `POST /` → dispatcher; other methods on `/` → 405;
 * `GET /dashboard` and its files → the page (other methods 405); other paths → 404; body over
 * `maxBodyBytes` → 413 (connection closed).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { dispatcher } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? consoleLog;
  const cors = options.corsOrigin ?? 'http://localhost:3000';
  const graceMs = options.closeGraceMs ?? 5_000;
  const dashboard = await loadDashboard();
  let closing = false;

  const unserialisable = (e: unknown): void =>
    log.error('rpc response is not serialisable', { error: e instanceof Error ? e.message : String(e) });
  const write = (res: http.ServerResponse, out: { status: number; text: string }, extra: Record<string, string> = {}): void => {
    const text = out.text;
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      'Access-Control-Allow-Origin': cors,
      ...extra,
    };
    if (closing) headers.Connection = 'close';
    res.writeHead(out.status, headers).end(text);
  };
  const send = (res: http.ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void =>
    write(res, answerText(status, body, unserialisable), extra);
  const reply = (res: http.ServerResponse, result: DispatchResult): void => write(res, resultText(result, unserialisable));

  const answer = (res: http.ServerResponse, body: Buffer, caller: { clientId: string }): void => {
    const text = decodeUtf8(body);
    if (text === undefined) return send(res, NOT_UTF8.status, NOT_UTF8.body);
    const result = dispatcher.handle(text, caller);
    if (!(result instanceof Promise)) return reply(res, result);
    result.then(
      (done) => reply(res, done),
      (e: unknown) => {
        log.error('http request failed', { error: e instanceof Error ? e.message : String(e) });
        if (!res.headersSent) send(res, 500, { error: 'Internal error' });
        else res.destroy();
      },
    );
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    let pathname = req.url ?? '/';
    if (pathname !== '/') {
      try {
        pathname = new URL(pathname, 'http://localhost').pathname;
      } catch {
        return send(res, 400, { error: 'Bad request target' });
      }
    }
    for (const route of options.routes ?? []) if (route(req, res, pathname)) return;
    if (pathname !== '/') {
      const page = dashboard.find(pathname);
      if (page === undefined) return send(res, 404, { error: 'Not found' });
      if (req.method === 'GET' || req.method === 'HEAD') return sendDashboardFile(req, res, page, closing);
      return send(res, 405, { error: 'Only GET requests are supported here' }, { Allow: 'GET, HEAD' });
    }
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
    const tooLarge = bodyTooLarge(maxBodyBytes);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return send(res, 413, tooLarge, { Connection: 'close' });
    const caller = { clientId: clientIdOf(req.socket.remoteAddress) };
    readBody(req, maxBodyBytes, (body) => (body === undefined ? send(res, 413, tooLarge, { Connection: 'close' }) : answer(res, body, caller)));
  };

  const server = http.createServer(onRequest);
  server.on('clientError', answerClientError);

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
