import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { ActivationError } from '../spec/errors.ts';
import { compile } from '../spec/validate.ts';
import { AuthGuard } from './auth.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import { clientIdOf, startHttpServer, type RunningHttpServer } from './httpServer.ts';
import { silentLog } from '../kernel/log.ts';
import { defineMethod, RpcVersion, type MethodTable, type RpcCaller } from './methods.ts';

const PASSWORD = 'Tr4in$station-Owl';
const HOST = '127.0.0.1';

const methods: MethodTable = {
  echo: defineMethod({
    version: RpcVersion.V2,
    params: compile(Type.Object({ ticker: Type.String() })),
    async handle(p) {
      return { ticker: p.ticker };
    },
  }),
  electrum: defineMethod({
    version: RpcVersion.Legacy,
    params: compile(Type.Object({ coin: Type.String() })),
    async handle(p) {
      return { result: 'success', coin: p.coin };
    },
  }),
  fail: defineMethod({
    version: RpcVersion.V2,
    params: compile(Type.Object({})),
    async handle() {
      throw new ActivationError('Transport', 'all nodes down', 'all nodes down');
    },
  }),
};

function post(url: string, body: string | object, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/** Sends raw bytes and reads until the server closes (or resets) the connection. */
function raw(port: number, chunks: readonly (string | Buffer)[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, HOST);
    const received: Buffer[] = [];
    const done = (): void => {
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      if (Number.isNaN(status)) reject(new Error(`no response: ${text}`));
      else resolve({ status, head, body });
    };
    socket.on('data', (d) => received.push(d));
    socket.on('close', done);
    socket.on('error', () => {}); // a reset after the answer is fine
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
    setTimeout(() => socket.destroy(), 3_000).unref();
  });
}

describe('httpServer', () => {
  let server: RunningHttpServer;
  let clock: ManualClock;
  let dispatched = 0;

  before(async () => {
    clock = new ManualClock();
    const inner = createDispatcher({ methods, auth: new AuthGuard({ rpcPassword: PASSWORD, clock }), log: silentLog });
    const dispatcher: Dispatcher = {
      handle: (body, caller) => {
        dispatched += 1;
        return inner.handle(body, caller);
      },
    };
    server = await startHttpServer({ host: HOST, port: 0, dispatcher, maxBodyBytes: 1024, log: silentLog });
  });
  after(() => server.close());

  it('binds 127.0.0.1 on a free port and reports its url', () => {
    assert.ok(server.port > 0);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
  });

  it('POST / answers the v2 envelope as application/json with the CORS header', async () => {
    const res = await post(server.url, { mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: { ticker: 'ETH' }, id: 5 });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.deepEqual(await res.json(), { mmrpc: '2.0', result: { ticker: 'ETH' }, id: 5 });
  });

  it('heads an answer with exactly its type, length and CORS origin, besides what node:http adds for keep-alive', async () => {
    const body = JSON.stringify({ mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: { ticker: 'ETH' }, id: 5 });
    const res = await raw(server.port, [
      `POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    assert.equal(res.status, 200);
    const lines = res.head.split('\r\n').slice(1);
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    assert.deepEqual([...headers.keys()].sort(), ['access-control-allow-origin', 'connection', 'content-length', 'content-type', 'date']);
    assert.equal(headers.get('content-type'), 'application/json');
    assert.equal(headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.equal(Number(headers.get('content-length')), Buffer.byteLength(res.body));
    assert.deepEqual(JSON.parse(res.body), { mmrpc: '2.0', result: { ticker: 'ETH' }, id: 5 });
  });

  it('maps error statuses: v2 error type status, legacy 500, non-JSON 500', async () => {
    const v2 = await post(server.url, { mmrpc: '2.0', userpass: PASSWORD, method: 'fail', params: {} });
    assert.equal(v2.status, 502);
    const body = (await v2.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'error_data', 'id']);
    const legacy = await post(server.url, { userpass: PASSWORD, method: 'electrum' });
    assert.equal(legacy.status, 500);
    assert.deepEqual(await legacy.json(), { error: 'Error parsing request: coin: Expected required property' });
    const garbage = await post(server.url, `{"userpass":"${PASSWORD}"`);
    assert.equal(garbage.status, 500);
    const text = await garbage.text();
    assert.ok(!text.includes(PASSWORD));
    assert.deepEqual(Object.keys(JSON.parse(text)), ['error']);
  });

  it('refuses a body that is not valid UTF-8 with 500 {"error"}', async () => {
    const res = await fetch(server.url, { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: 'The request body is not valid UTF-8' });
  });

  it('answers a batch with 200 and an array in order', async () => {
    const res = await post(server.url, [
      { mmrpc: '2.0', userpass: PASSWORD, method: 'fail', params: {}, id: 1 },
      { userpass: PASSWORD, method: 'electrum', coin: 'KMD' },
    ]);
    assert.equal(res.status, 200);
    const body = (await res.json()) as [{ error_type: string; id: number }, unknown];
    assert.equal(body[0].error_type, 'Transport');
    assert.equal(body[0].id, 1);
    assert.deepEqual(body[1], { result: 'success', coin: 'KMD' });
  });

  it('answers an OPTIONS preflight like the reference', async () => {
    const res = await fetch(server.url, { method: 'OPTIONS' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
    assert.equal(res.headers.get('access-control-allow-headers'), 'Content-Type');
    assert.equal(res.headers.get('access-control-max-age'), '3600');
    assert.equal(await res.text(), '');
  });

  it('answers other methods with 405 and other paths with 404', async () => {
    const get = await fetch(server.url);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
    assert.deepEqual(await get.json(), { error: 'Only POST requests are supported!' });
    const other = await post(`${server.url}/rpc`, {});
    assert.equal(other.status, 404);
    assert.equal(other.headers.get('content-type'), 'application/json');
    await other.body?.cancel();
    const query = await post(`${server.url}/?x=1`, { userpass: PASSWORD, method: 'electrum', coin: 'KMD' });
    assert.equal(query.status, 200, 'a query string on / is fine');
    await query.body?.cancel();
  });

  it('answers what the HTTP parser refuses with JSON too: a malformed request 400, huge headers 431', async () => {
    const malformed = await raw(server.port, ['NOT HTTP AT ALL\r\n\r\n']);
    assert.equal(malformed.status, 400);
    assert.match(malformed.head, /content-type: application\/json/i);
    assert.deepEqual(JSON.parse(malformed.body), { error: 'Bad Request' });
    const huge = await raw(server.port, [`POST / HTTP/1.1\r\nHost: ${HOST}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    assert.equal(huge.status, 431);
    assert.deepEqual(JSON.parse(huge.body), { error: 'Request Header Fields Too Large' });
    const after = await post(server.url, { userpass: PASSWORD, method: 'electrum', coin: 'KMD' });
    assert.equal(after.status, 200, 'the server keeps serving');
  });

  it('refuses a declared oversize body with 413 before reading it', async () => {
    const before = dispatched;
    const res = await raw(server.port, [
      `POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n`,
    ]);
    assert.equal(res.status, 413);
    assert.match(res.head, /connection: close/i);
    assert.match(JSON.parse(res.body).error, /larger than 1024 bytes/);
    assert.equal(dispatched, before);
  });

  it('stops reading a chunked body once it exceeds the limit and answers 413', async () => {
    const before = dispatched;
    const chunk = 'x'.repeat(800);
    const res = await raw(server.port, [
      `POST / HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `${(800).toString(16)}\r\n${chunk}\r\n`,
      `${(800).toString(16)}\r\n${chunk}\r\n`,
    ]);
    assert.equal(res.status, 413);
    assert.match(res.head, /connection: close/i);
    assert.match(res.head, /access-control-allow-origin: http:\/\/localhost:3000/i);
    assert.equal(dispatched, before);
    const after = await post(server.url, { userpass: PASSWORD, method: 'electrum', coin: 'KMD' });
    assert.equal(after.status, 200, 'the server keeps serving');
  });

  it('locks a caller out after 10 wrong userpasses (the remote address is the caller id)', async () => {
    const wrong = { mmrpc: '2.0', userpass: 'not-it', method: 'echo', params: { ticker: 'ETH' } };
    for (let left = 9; left >= 0; left--) {
      const res = await post(server.url, wrong);
      assert.equal(res.status, 403);
      assert.deepEqual(((await res.json()) as { error_data: unknown }).error_data, { error_type: 'NbAttemptsLeft', error_data: left });
    }
    const banned = await post(server.url, { ...wrong, userpass: PASSWORD });
    assert.equal(banned.status, 403);
    const body = (await banned.json()) as { error_type: string; error_data: number };
    assert.deepEqual([body.error_type, body.error_data], ['Banned', 30]);
    clock.advance(30_000);
    assert.equal((await post(server.url, { ...wrong, userpass: PASSWORD })).status, 200);
  });
});

describe('httpServer: caller id and graceful close', () => {
  it('passes the remote address as clientId', async () => {
    const seen: RpcCaller[] = [];
    const server = await startHttpServer({
      host: HOST,
      port: 0,
      log: silentLog,
      dispatcher: { handle: async (_b, caller) => (seen.push(caller), { status: 200, body: {} }) },
    });
    try {
      await (await post(server.url, {})).text();
      assert.deepEqual(seen, [{ clientId: '127.0.0.1' }]);
      assert.equal(clientIdOf('::ffff:10.1.2.3'), '10.1.2.3');
      assert.equal(clientIdOf('::1'), '::1');
    } finally {
      await server.close();
    }
  });

  it('lets an in-flight request finish, then stops accepting connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const inFlight = new Promise<void>((r) => (started = r));
    const server = await startHttpServer({
      host: HOST,
      port: 0,
      log: silentLog,
      corsOrigin: 'http://example.test',
      dispatcher: {
        handle: async () => {
          started();
          await gate;
          return { status: 200, body: { done: true } };
        },
      },
    });
    const pending = post(server.url, {});
    await inFlight;
    const closed = server.close();
    release();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://example.test');
    assert.equal(res.headers.get('connection'), 'close');
    assert.deepEqual(await res.json(), { done: true });
    await closed;
    await assert.rejects(post(server.url, {}));
    assert.equal(server.close(), closed, 'close is idempotent');
  });
});
