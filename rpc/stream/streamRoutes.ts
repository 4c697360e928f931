/**
 * HTTP side of the streams (docs/streaming.md): `GET /event-stream?id=<client_id>` (the reference's
 * endpoint) and `GET /events?coin=&task=&type=`, both authenticated by the RPC password
 * (`Authorization: Bearer <pw>` or a `userpass` query parameter, never logged) through the RPC's
 * own {@link AuthGuard}, so wrong passwords count towards the same lockout.
 */
import type http from 'node:http';
import type { Log } from '../../kernel/log.ts';
import { ActivationError, ErrorType, invalidRequest } from '../../spec/errors.ts';
import { errorOrigin, renderV2Error } from '../../spec/render/envelope.ts';
import type { AuthGuard } from '../auth.ts';
import { clientIdOf, type HttpRoute } from '../httpServer.ts';
import { parseEventFilter, type Parsed } from './eventFilter.ts';
import type { StreamHub, StreamSelection } from './streamHub.ts';

export const STREAM_PATHS = { taskStream: '/event-stream', events: '/events' } as const;

export interface StreamRoutesOptions {
  readonly hub: StreamHub;
  readonly auth: AuthGuard;
  /** `Access-Control-Allow-Origin` of stream responses (`event_streaming_configuration`). */
  readonly corsOrigin: string;
  /** The newest log sequence: a `Last-Event-ID` beyond it is refused. */
  readonly lastSeq: () => number;
  readonly log: Log;
}

const UNSIGNED = /^(0|[1-9][0-9]{0,15})$/;
const unsigned = (text: string): number | undefined => (UNSIGNED.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined);

/** The route serving both stream paths; other paths are left to the next route. */
export function streamRoute(options: StreamRoutesOptions): HttpRoute {
  const { hub, auth, corsOrigin, log } = options;

  const json = (res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res
      .writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Access-Control-Allow-Origin': corsOrigin, ...extra })
      .end(text);
  };
  /** A v2 error body; auth errors carry the RPC's own origin (`rpc.auth`), so they read as the RPC's. */
  const refuse = (res: http.ServerResponse, error: ActivationError, module: 'auth' | 'stream', extra: Record<string, string> = {}): void =>
    json(res, error.httpStatus, renderV2Error(error, null, errorOrigin(module, error.errorType)), extra);

  return (req, res, pathname) => {
    if (pathname !== STREAM_PATHS.taskStream && pathname !== STREAM_PATHS.events) return false;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': corsOrigin,
        'Access-Control-Allow-Methods': 'GET, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Last-Event-ID, Cache-Control',
        'Access-Control-Max-Age': '3600',
      });
      res.end();
      return true;
    }
    if (req.method !== 'GET') {
      json(res, 405, { error: 'Only GET requests are supported on the event streams' }, { Allow: 'GET, OPTIONS' });
      return true;
    }
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const caller = { clientId: clientIdOf(req.socket.remoteAddress) };
    const verdict = auth.check(credentials(req, query), caller);
    if (!verdict.ok) {
      log.warn('stream auth refused', { clientId: caller.clientId, errorType: verdict.error.errorType });
      // Missing credentials are 401 with a challenge; a wrong password or a lockout keep the RPC's 403.
      const missing = verdict.error.errorType === ErrorType.UserpassIsNotSet;
      const error = missing ? new ActivationError(verdict.error.errorType, verdict.error.message, undefined, { httpStatus: 401 }) : verdict.error;
      refuse(res, error, 'auth', missing ? { 'WWW-Authenticate': 'Bearer' } : {});
      return true;
    }
    const selection = selectionOf(pathname, query);
    const resume = lastEventId(req, options.lastSeq());
    if (!selection.ok || !resume.ok) {
      refuse(res, invalidRequest(selection.ok ? (resume as { error: string }).error : selection.error), 'stream');
      return true;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'Access-Control-Allow-Origin': corsOrigin,
    });
    const ready = selection.value.kind === 'tasks' ? { client_id: selection.value.clientId } : {};
    hub.open(res, selection.value, resume.value, ready).catch((e: unknown) => {
      log.error('stream failed', { error: e instanceof Error ? e.message : String(e) });
      res.destroy();
    });
    return true;
  };
}

/** `Authorization: Bearer <pw>` first, else the `userpass` query parameter; `undefined` when neither. */
function credentials(req: http.IncomingMessage, query: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer[ ]+(.+)$/i.exec(header);
    return match?.[1];
  }
  return query.get('userpass') ?? undefined;
}

const TASK_STREAM_PARAMS = new Set(['id', 'userpass']);
const EVENTS_PARAMS = new Set(['userpass']);

function selectionOf(pathname: string, query: URLSearchParams): Parsed<StreamSelection> {
  if (pathname === STREAM_PATHS.events) {
    const filter = parseEventFilter(query, EVENTS_PARAMS);
    return filter.ok ? { ok: true, value: { kind: 'events', filter: filter.value } } : filter;
  }
  for (const key of query.keys()) if (!TASK_STREAM_PARAMS.has(key)) return { ok: false, error: `unknown query parameter "${key.slice(0, 64)}" (expected id)` };
  const ids = query.getAll('id');
  if (ids.length > 1) return { ok: false, error: 'id: given more than once' };
  const clientId = ids.length === 0 ? 0 : unsigned(ids[0]!);
  if (clientId === undefined) return { ok: false, error: `id: "${ids[0]!.slice(0, 64)}" is not a client id (an unsigned integer)` };
  return { ok: true, value: { kind: 'tasks', clientId } };
}

/** `Last-Event-ID`: absent (live only), or a sequence not beyond the log's newest. */
function lastEventId(req: http.IncomingMessage, newest: number): Parsed<number | undefined> {
  const header = req.headers['last-event-id'];
  if (header === undefined || header === '') return { ok: true, value: undefined };
  const seq = typeof header === 'string' ? unsigned(header.trim()) : undefined;
  if (seq === undefined) return { ok: false, error: `Last-Event-ID: "${String(header).slice(0, 64)}" is not an event id (an unsigned integer)` };
  if (seq > newest) return { ok: false, error: `Last-Event-ID: ${seq} is beyond the newest event (${newest}) of this node's log` };
  return { ok: true, value: seq };
}
