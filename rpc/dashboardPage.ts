/**
 * `GET /dashboard` (issue 15, docs/dashboard.md): the operator's page, three static files of
 * `rpc/dashboard/` served by the service itself. Only the files named in {@link DASHBOARD_FILES}
 * are served, from memory, by exact path: a request path never reaches the file system, so there
 * is nothing to traverse. The page holds no data; it asks the RPC and `/events` with the password
 * the user types.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type http from 'node:http';

/** Request path → file of `rpc/dashboard/` and its content type. `/dashboard/` is the page too. */
export const DASHBOARD_FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/dashboard': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

/**
 * Everything from this origin only, nothing inline, no plugins, no framing, no form posts: the page
 * talks to `/` (the RPC) and `/events` with `fetch`, and loads its own script and style sheet.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
} as const;

/** The page's files, read once at start. */
export interface DashboardFiles {
  /** The file served at `pathname`, or `undefined` when the path is not one of the page's. */
  find(pathname: string): { readonly body: Buffer; readonly type: string } | undefined;
}

/** Reads the page's files from `dir` (default: `rpc/dashboard/` beside this module). */
export async function loadDashboard(dir: string = join(import.meta.dirname, 'dashboard')): Promise<DashboardFiles> {
  const bodies = new Map<string, Buffer>();
  for (const { file } of Object.values(DASHBOARD_FILES)) {
    if (!bodies.has(file)) bodies.set(file, await readFile(join(dir, file)));
  }
  return {
    find(pathname) {
      const entry = Object.hasOwn(DASHBOARD_FILES, pathname) ? DASHBOARD_FILES[pathname] : undefined;
      return entry === undefined ? undefined : { body: bodies.get(entry.file)!, type: entry.type };
    },
  };
}

/** Answers `GET` (and `HEAD`) with the file; the caller answers other methods. */
export function sendDashboardFile(req: http.IncomingMessage, res: http.ServerResponse, file: { body: Buffer; type: string }, closing: boolean): void {
  res.writeHead(200, {
    'Content-Type': file.type,
    'Content-Length': file.body.length,
    ...HEADERS,
    ...(closing ? { Connection: 'close' } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : file.body);
}
