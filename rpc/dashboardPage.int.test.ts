import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { silentLog } from '../kernel/log.ts';
import { AuthGuard } from './auth.ts';
import { createDispatcher } from './dispatcher.ts';
import { startHttpServer, type RunningHttpServer } from './httpServer.ts';

const HOST = '127.0.0.1';
const folder = join(import.meta.dirname, 'dashboard');

/** Sends a raw request line (no client-side normalisation of `..`) and reads the answer. */
function rawGet(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, HOST, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.split('\r\n\r\n')[1] ?? '' });
    });
  });
}

describe('GET /dashboard', () => {
  let server: RunningHttpServer;

  before(async () => {
    const dispatcher = createDispatcher({ methods: {}, auth: new AuthGuard({ rpcPassword: 'Tr4in$station-Owl', clock: new ManualClock() }), log: silentLog });
    server = await startHttpServer({ host: HOST, port: 0, dispatcher, log: silentLog });
  });
  after(() => server.close());

  const files = [
    ['/dashboard', 'index.html', 'text/html; charset=utf-8'],
    ['/dashboard/', 'index.html', 'text/html; charset=utf-8'],
    ['/dashboard/app.js', 'app.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/style.css', 'style.css', 'text/css; charset=utf-8'],
  ] as const;

  for (const [path, file, type] of files) {
    it(`${path} serves ${file} as ${type} under a strict CSP`, async () => {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), type);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /(^|; )default-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('access-control-allow-origin'), null, 'the page is for its own origin only');
      assert.equal(await res.text(), await readFile(join(folder, file), 'utf8'));
    });
  }

  it('HEAD answers the headers without the body; other methods 405 as JSON', async () => {
    const head = await fetch(`${server.url}/dashboard/app.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('content-length')), (await readFile(join(folder, 'app.js'))).length);
    assert.equal(await head.text(), '');
    const post = await fetch(`${server.url}/dashboard`, { method: 'POST', body: '{}' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.deepEqual(await post.json(), { error: 'Only GET requests are supported here' });
  });

  it('serves only its own files: anything else under /dashboard, and traversal, is the JSON 404', async () => {
    for (const target of [
      '/dashboard/index.html',
      '/dashboard/dashboardPage.ts',
      '/dashboard/../httpServer.ts',
      '/dashboard/%2e%2e/httpServer.ts',
      '/dashboard/..%2fhttpServer.ts',
      '/dashboard/app.js/',
      '/dashboardx',
      '/rpc/dashboard/app.js',
      '/dashboard//app.js',
    ]) {
      const res = await rawGet(server.port, target);
      assert.equal(res.status, 404, target);
      assert.deepEqual(JSON.parse(res.body), { error: 'Not found' }, target);
    }
  });

  it('the page loads nothing from outside its origin and runs no inline script or style', async () => {
    for (const file of ['index.html', 'app.js', 'style.css']) {
      const text = await readFile(join(folder, file), 'utf8');
      assert.doesNotMatch(text, /(https?:|wss?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i, `${file} names another host`);
      assert.doesNotMatch(text, /@import|url\(/i, `${file} loads a resource`);
    }
    const html = await readFile(join(folder, 'index.html'), 'utf8');
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, 'inline script');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'inline style or handler');
  });
});
