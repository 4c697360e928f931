/**
 * `GET /metrics` (docs/metrics.md): the Prometheus text format. Protected by the RPC password as
 * `Authorization: Bearer <rpc_password>`, through the RPC's own guard (same lockout), unless
 * MM2.json `metrics.public` opens it.
 */
import type http from 'node:http';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { renderV2Error, errorOrigin } from '../../spec/render/envelope.ts';
import type { AuthGuard } from '../auth.ts';
import { clientIdOf, type HttpRoute } from '../httpServer.ts';
import type { Log } from '../../kernel/log.ts';
import type { ServiceMetrics } from './serviceMetrics.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsRouteOptions {
  readonly metrics: ServiceMetrics;
  readonly auth: AuthGuard;
  /** MM2.json `metrics.public`: answer without the password. @default false */
  readonly public?: boolean;
  readonly log: Log;
}

/** The `Bearer` credentials of `Authorization`; `undefined` when absent or of another scheme. */
function bearer(req: http.IncomingMessage): string | undefined {
  const match = /^Bearer[ ]+(.+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

export function metricsRoute(options: MetricsRouteOptions): HttpRoute {
  const { metrics, auth, log } = options;
  const json = (res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...extra }).end(text);
  };

  return (req, res, pathname) => {
    if (pathname !== METRICS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { error: 'Only GET requests are supported on /metrics' }, { Allow: 'GET, HEAD' });
      return true;
    }
    if (options.public !== true) {
      const caller = { clientId: clientIdOf(req.socket.remoteAddress) };
      const verdict = auth.check(bearer(req), caller);
      if (!verdict.ok) {
        log.warn('metrics auth refused', { clientId: caller.clientId, errorType: verdict.error.errorType });
        // Missing credentials are 401 with a challenge; a wrong password or a lockout keep the RPC's 403.
        const missing = verdict.error.errorType === ErrorType.UserpassIsNotSet;
        const error = missing ? new ActivationError(verdict.error.errorType, verdict.error.message, undefined, { httpStatus: 401 }) : verdict.error;
        json(res, error.httpStatus, renderV2Error(error, null, errorOrigin('auth', error.errorType)), missing ? { 'WWW-Authenticate': 'Bearer' } : {});
        return true;
      }
    }
    metrics.scrape().then(
      ({ contentType, text }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (e: unknown) => {
        log.error('metrics scrape failed', { error: e instanceof Error ? e.message : String(e) });
        json(res, 500, { error: 'Internal error' });
      },
    );
    return true;
  };
}
