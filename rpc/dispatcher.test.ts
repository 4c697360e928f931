import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { ActivationError } from '../spec/errors.ts';
import { compile } from '../spec/validate.ts';
import { AuthGuard } from './auth.ts';
import { createDispatcher, type DispatchResult, type Dispatcher } from './dispatcher.ts';
import type { LogFields, Log } from '../kernel/log.ts';
import { defineMethod, RpcVersion, type MethodTable } from './methods.ts';
import { RenderedJson } from './json.ts';

const PASSWORD = 'Kx7$orbit-Maple';
const PASSPHRASE = 'very secret seed words';
const V2_ERROR_KEYS = ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'error_data', 'id'];
const V2_ERROR_KEYS_NO_DATA = V2_ERROR_KEYS.filter((k) => k !== 'error_data');

/** Every body and log line produced by any test; checked for secrets at the end. */
const transcript: string[] = [];
/** Every response body produced by any test. */
const bodies: string[] = [];

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A result answered with its JSON text rendered once (as task statuses are). */
const RENDERED = new RenderedJson({ status: 'InProgress', details: 'Waiting "quoted" \u2028', n: [1, 2.5, null] });

function fakeMethods(received: unknown[]) {
  let gate = deferred();
  const EnableParams = Type.Object({
    ticker: Type.String(),
    nodes: Type.Array(Type.Object({ url: Type.String() })),
    get_balances: Type.Boolean({ default: true }),
    passphrase: Type.Optional(Type.String()),
  });
  const methods: MethodTable = {
    enable_thing: defineMethod({
      version: RpcVersion.V2,
      params: compile(EnableParams),
      async handle(p) {
        received.push(p);
        return { ticker: p.ticker, get_balances: p.get_balances };
      },
    }),
    electrum: defineMethod({
      version: RpcVersion.Legacy,
      params: compile(Type.Object({ coin: Type.String(), min_connected: Type.Integer({ default: 1 }) })),
      async handle(p) {
        received.push(p);
        return { result: 'success', coin: p.coin, address: 'Rabc', balance: '0' };
      },
    }),
    already_active: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        throw new ActivationError('PlatformIsAlreadyActivated', 'ETH', 'ETH');
      },
    }),
    cancel: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({ task_id: Type.Integer() })),
      async handle(p) {
        throw new ActivationError('NoSuchTask', `No such task: ${p.task_id}`, p.task_id, { httpStatus: 404 });
      },
    }),
    mismatch: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        throw new ActivationError('PlatformCoinMismatch', 'Platform coin mismatch');
      },
    }),
    explode: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({ passphrase: Type.Optional(Type.String()) })),
      async handle(p) {
        throw new Error(`boom at /home/dev/src/secret.ts: ${PASSWORD} ${p.passphrase ?? ''}`);
      },
    }),
    legacy_explode: defineMethod({
      version: RpcVersion.Legacy,
      params: compile(Type.Object({})),
      async handle() {
        throw new TypeError(`legacy boom ${PASSWORD}`);
      },
    }),
    legacy_schema_bug: defineMethod({
      version: RpcVersion.Legacy,
      params: {
        ...compile(Type.Object({})),
        decode: () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      },
      handle: () => 'unreachable',
    }),
    disable_coin: defineMethod({
      version: RpcVersion.Legacy,
      params: compile(Type.Object({ coin: Type.String() })),
      async handle(p) {
        throw new ActivationError('NoSuchCoin', `No such coin: ${p.coin}`, undefined, {
          legacyFields: { orders: { matching: [], cancelled: [] }, active_swaps: [] },
        });
      },
    }),
    get_enabled_coins: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        return { coins: [{ ticker: 'ETH' }] };
      },
    }),
    slow: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        await gate.promise;
        gate = deferred();
        return 'slow done';
      },
    }),
    release: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        gate.resolve();
        return 'released';
      },
    }),
    nothing: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      async handle() {
        return undefined;
      },
    }),
    rendered: defineMethod({
      version: RpcVersion.V2,
      params: compile(Type.Object({})),
      handle: () => RENDERED,
    }),
    legacy_rendered: defineMethod({
      version: RpcVersion.Legacy,
      params: compile(Type.Object({})),
      handle: () => RENDERED,
    }),
  };
  const legacyMethods: MethodTable = {
    get_enabled_coins: defineMethod({
      version: RpcVersion.Legacy,
      params: compile(Type.Object({})),
      async handle() {
        return { result: [{ ticker: 'ETH', address: '0xabc' }] };
      },
    }),
  };
  return { methods, legacyMethods };
}

interface Setup {
  d: Dispatcher;
  clock: ManualClock;
  logs: string[];
  received: unknown[];
  call(body: unknown, clientId?: string): Promise<DispatchResult & { body: any }>;
}

function setup(): Setup {
  const clock = new ManualClock();
  const logs: string[] = [];
  const line = (level: string) => (message: string, fields?: LogFields) => {
    const text = JSON.stringify({ level, message, ...fields });
    logs.push(text);
    transcript.push(text);
  };
  const log: Log = { info: line('info'), warn: line('warn'), error: line('error') };
  const received: unknown[] = [];
  const { methods, legacyMethods } = fakeMethods(received);
  const d = createDispatcher({ methods, legacyMethods, auth: new AuthGuard({ rpcPassword: PASSWORD, clock }), log });
  const call = async (body: unknown, clientId = '127.0.0.1') => {
    const res = await d.handle(typeof body === 'string' ? body : JSON.stringify(body), { clientId });
    transcript.push(JSON.stringify(res.body));
    bodies.push(JSON.stringify(res.body));
    return res as DispatchResult & { body: any };
  };
  return { d, clock, logs, received, call };
}

const v2 = (method: string, params?: unknown, extra: Record<string, unknown> = {}) => ({
  mmrpc: '2.0',
  userpass: PASSWORD,
  method,
  ...(params === undefined ? {} : { params }),
  ...extra,
});

function assertV2Error(res: DispatchResult & { body: any }, status: number, errorType: string, withData: boolean): void {
  assert.equal(res.status, status);
  assert.equal(res.body.error_type, errorType);
  assert.deepEqual(Object.keys(res.body), withData ? V2_ERROR_KEYS : V2_ERROR_KEYS_NO_DATA);
  assert.equal(res.body.mmrpc, '2.0');
  assert.match(res.body.error_path, /^rpc\.[A-Za-z0-9_.:-]+$/);
  assert.match(res.body.error_trace, /^[A-Za-z0-9_.:-]+\]$/);
}

after(() => {
  const all = transcript.join('\n');
  assert.ok(transcript.length > 50, 'the transcript was collected');
  assert.ok(!all.includes(PASSWORD), 'the password never appears in a body or log line');
  assert.ok(!all.includes(PASSPHRASE), 'secret-looking params never appear in a body or log line');
  assert.ok(!all.includes('wrong-guess-'), 'a wrong guess is never echoed');
  assert.ok(!bodies.join('\n').includes('/home/dev'), 'no file path of the machine leaks into a response');
  assert.ok(!bodies.join('\n').includes('boom'), 'no exception message leaks into a response');
});

describe('dispatcher: transport-level errors', () => {
  it('answers a non-JSON body with HTTP 500 {"error": <parse message>} that does not echo the body', async () => {
    const { call } = setup();
    const res = await call(`{"userpass":"${PASSWORD}", method: }`);
    assert.equal(res.status, 500);
    assert.deepEqual(Object.keys(res.body), ['error']);
    assert.match(res.body.error, /line 1 column \d+/);
  });

  it('answers a non-object JSON value with v2 InvalidRequest', async () => {
    const { call } = setup();
    const res = await call('"just a string"');
    assertV2Error(res, 400, 'InvalidRequest', true);
    assert.equal(res.body.id, null);
  });
});

describe('dispatcher: v2 requests', () => {
  it('answers a success with the decoded params (defaults applied, unknown params keys ignored) and echoes id', async () => {
    const { call, received } = setup();
    const res = await call(v2('enable_thing', { ticker: 'ETH', nodes: [{ url: 'http://n' }], extra_key: 1 }, { id: 7 }));
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['mmrpc', 'result', 'id']);
    assert.deepEqual(res.body, { mmrpc: '2.0', result: { ticker: 'ETH', get_balances: true }, id: 7 });
    assert.equal((received[0] as { get_balances: boolean }).get_balances, true);
  });

  it('answers id null when id is absent or null, and id 0 when 0', async () => {
    const { call } = setup();
    assert.equal((await call(v2('get_enabled_coins', {}))).body.id, null);
    assert.equal((await call(v2('get_enabled_coins', {}, { id: null }))).body.id, null);
    assert.equal((await call(v2('get_enabled_coins', {}, { id: 0 }))).body.id, 0);
  });

  it("the reference client's envelope (docs/compatibility.md §19): no id, params null, key order method/mmrpc/params/userpass; its error test holds", async () => {
    const { call } = setup();
    // The client's own key order and "params": null for a method without params.
    const ok = await call({ method: 'get_enabled_coins', mmrpc: '2.0', params: null, userpass: PASSWORD });
    assert.equal(ok.status, 200);
    assert.deepEqual(Object.keys(ok.body), ['mmrpc', 'result', 'id']);
    assert.equal(ok.body.id, null);
    // The client treats as an error any body with a top-level `error`, `result.status == "Error"`,
    // `result.details.error` or `code == -1`: a success has none of them, every refusal has `error`.
    const isClientError = (b: any) => 'error' in b || b.result?.status === 'Error' || b.result?.details?.error !== undefined || b.code === -1;
    assert.equal(isClientError(ok.body), false);
    const refusals = [
      await call({ method: 'enable_thing', mmrpc: '2.0', params: null, userpass: PASSWORD }), // params required: null is {}
      await call({ method: 'no_such', mmrpc: '2.0', params: null, userpass: PASSWORD }),
      await call({ method: 'get_enabled_coins', mmrpc: '2.0', params: null }),
    ];
    assert.deepEqual(refusals.map((r) => [r.status, r.body.error_type]), [[400, 'InvalidRequest'], [400, 'NoSuchMethod'], [403, 'UserpassIsNotSet']]);
    for (const r of refusals) assert.equal(isClientError(r.body), true, JSON.stringify(r.body));
    assert.match(refusals[0]!.body.error, /params\.ticker/);
  });

  it('sends result null for a handler that returns nothing', async () => {
    const { call } = setup();
    assert.deepEqual((await call(v2('nothing', {}))).body, { mmrpc: '2.0', result: null, id: null });
  });

  it('a result rendered once is answered with its text, the same bytes as serialising the answer, in either form and in a batch', async () => {
    const { call } = setup();
    for (const id of [undefined, null, 0, 42]) {
      const res = await call(v2('rendered', {}, id === undefined ? {} : { id }));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { mmrpc: '2.0', result: RENDERED.value, id: id ?? null });
      assert.equal(res.text, JSON.stringify(res.body));
    }
    const legacy = await call({ userpass: PASSWORD, method: 'legacy_rendered' });
    assert.deepEqual(legacy.body, RENDERED.value);
    assert.equal(legacy.text, JSON.stringify(legacy.body));
    const batch = await call([v2('rendered', {}, { id: 1 }), { userpass: PASSWORD, method: 'legacy_rendered' }]);
    assert.equal(batch.text, undefined, 'a batch is serialised as a whole');
    assert.deepEqual(batch.body, [{ mmrpc: '2.0', result: RENDERED.value, id: 1 }, RENDERED.value]);
  });

  it('mmrpc other than "2.0" is InvalidMmRpcVersion 400, checked before auth (no attempt counted)', async () => {
    const { call } = setup();
    for (const mmrpc of ['1.0', 2, true]) {
      const res = await call({ mmrpc, userpass: 'wrong-guess-1', method: 'enable_thing', id: 4, junk: 1 });
      assertV2Error(res, 400, 'InvalidMmRpcVersion', true);
      assert.equal(res.body.id, 4);
    }
    const wrong = await call(v2('enable_thing', {}, { userpass: 'wrong-guess-2' }));
    assert.deepEqual(wrong.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 });
  });

  it('an unknown top-level key is InvalidRequest 400 naming the key, before auth', async () => {
    const { call } = setup();
    const res = await call(v2('enable_thing', {}, { userpass: 'wrong-guess-3', coin: 'ETH', id: 5 }));
    assertV2Error(res, 400, 'InvalidRequest', true);
    assert.equal(res.body.error_data, 'coin: Unexpected property');
    assert.equal(res.body.error, 'Error parsing request: coin: Unexpected property');
    assert.equal(res.body.id, 5);
  });

  it('a negative or fractional id is InvalidRequest with id null', async () => {
    const { call } = setup();
    for (const id of [-1, 1.5, 'x']) {
      const res = await call(v2('get_enabled_coins', {}, { id }));
      assertV2Error(res, 400, 'InvalidRequest', true);
      assert.equal(res.body.id, null);
      assert.match(res.body.error_data, /^id: /);
    }
  });

  it('missing (or null) userpass is UserpassIsNotSet 403 without error_data', async () => {
    const { call } = setup();
    for (const userpass of [undefined, null]) {
      const res = await call({ mmrpc: '2.0', method: 'enable_thing', params: {}, id: 1, ...(userpass === null ? { userpass } : {}) });
      assertV2Error(res, 403, 'UserpassIsNotSet', false);
      assert.equal(res.body.error, 'Userpass is not set!');
      assert.equal(res.body.id, 1);
    }
  });

  it('a wrong userpass is UserpassIsInvalid 403 with NbAttemptsLeft; auth runs before method lookup', async () => {
    const { call } = setup();
    const res = await call(v2('no_such_method', {}, { userpass: 'wrong-guess-4', id: 9 }));
    assertV2Error(res, 403, 'UserpassIsInvalid', true);
    assert.deepEqual(res.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 });
    assert.equal(res.body.id, 9);
  });

  it('an unknown method with the right userpass is NoSuchMethod 400 without error_data', async () => {
    const { call } = setup();
    for (const method of ['no_such_method', 'constructor', '__proto__', 'electrum']) {
      const res = await call(v2(method, {}, { id: 2 }));
      assertV2Error(res, 400, 'NoSuchMethod', false);
      assert.equal(res.body.error, 'No such method');
      assert.equal(res.body.id, 2);
    }
  });

  it('invalid params are InvalidRequest 400 naming the field', async () => {
    const { call, received } = setup();
    const res = await call(v2('enable_thing', { ticker: 'ETH', nodes: [{ url: 5 }] }, { id: 3 }));
    assertV2Error(res, 400, 'InvalidRequest', true);
    assert.equal(res.body.error_data, 'params.nodes[0].url: Expected string');
    assert.equal(res.body.id, 3);
    const missing = await call(v2('enable_thing'));
    assert.equal(missing.body.error_data, 'params.ticker: Expected required property');
    const notObject = await call(v2('enable_thing', [1]));
    assert.equal(notObject.body.error_data, 'params: Expected object');
    assert.equal(received.length, 0, 'the handler never ran');
  });

  it('a handler ActivationError gives its envelope and status', async () => {
    const { call } = setup();
    const active = await call(v2('already_active', {}, { id: 11 }));
    assertV2Error(active, 400, 'PlatformIsAlreadyActivated', true);
    assert.equal(active.body.error, 'ETH');
    assert.equal(active.body.error_data, 'ETH');
    assert.equal(active.body.id, 11);
    const cancel = await call(v2('cancel', { task_id: 77 }));
    assertV2Error(cancel, 404, 'NoSuchTask', true);
    assert.equal(cancel.body.error_data, 77);
    assertV2Error(await call(v2('mismatch', {})), 400, 'PlatformCoinMismatch', false);
  });

  it('any other exception is a generic InternalError 500, logged without secrets', async () => {
    const { call, logs } = setup();
    const res = await call(v2('explode', { passphrase: PASSPHRASE }, { id: 12 }));
    assertV2Error(res, 500, 'InternalError', false);
    assert.equal(res.body.error, 'Internal error');
    assert.equal(res.body.id, 12);
    const line = logs.find((l) => l.includes('rpc internal error'));
    assert.ok(line !== undefined && line.includes('boom') && line.includes('[REDACTED]'));
  });
});

describe('dispatcher: legacy requests', () => {
  it('a legacy method answers the flat object; the handler gets the flat body with defaults', async () => {
    const { call, received } = setup();
    const res = await call({ userpass: PASSWORD, method: 'electrum', coin: 'KMD', servers: [] });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: 'success', coin: 'KMD', address: 'Rabc', balance: '0' });
    assert.deepEqual(received[0], { coin: 'KMD', servers: [], min_connected: 1 });
  });

  it('treats "mmrpc": null as legacy', async () => {
    const { call } = setup();
    const res = await call({ mmrpc: null, userpass: PASSWORD, method: 'electrum', coin: 'KMD' });
    assert.equal(res.body.result, 'success');
  });

  it('legacy params errors are HTTP 500 {"error": ...} naming the field', async () => {
    const { call } = setup();
    const res = await call({ userpass: PASSWORD, method: 'electrum', coin: 5 });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: 'Error parsing request: coin: Expected string' });
  });

  it('legacy auth errors are HTTP 500 {"error": ...}', async () => {
    const { call } = setup();
    const missing = await call({ method: 'electrum', coin: 'KMD' });
    assert.equal(missing.status, 500);
    assert.deepEqual(missing.body, { error: 'Userpass is not set!' });
    const wrong = await call({ userpass: 'wrong-guess-5', method: 'electrum', coin: 'KMD' });
    assert.equal(wrong.status, 500);
    assert.deepEqual(wrong.body, { error: 'Userpass is invalid! - Rate Limit attempts left: 9' });
  });

  it('a legacy ActivationError is 500 with its legacyFields; any other exception is a generic 500', async () => {
    const { call } = setup();
    const res = await call({ userpass: PASSWORD, method: 'disable_coin', coin: 'ETH' });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: 'No such coin: ETH', orders: { matching: [], cancelled: [] }, active_swaps: [] });
    const boom = await call({ userpass: PASSWORD, method: 'legacy_explode' });
    assert.equal(boom.status, 500);
    assert.deepEqual(boom.body, { error: 'Internal error' });
  });

  it('a v2 method without mmrpc is handled as v2, with auth errors in legacy form', async () => {
    const { call } = setup();
    const ok = await call({ userpass: PASSWORD, method: 'enable_thing', params: { ticker: 'ETH', nodes: [] }, id: 6 });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { mmrpc: '2.0', result: { ticker: 'ETH', get_balances: true }, id: 6 });
    const missing = await call({ method: 'enable_thing', params: {} });
    assert.deepEqual([missing.status, missing.body], [500, { error: 'Userpass is not set!' }]);
    const bad = await call({ userpass: PASSWORD, method: 'already_active', params: {} });
    assertV2Error(bad, 400, 'PlatformIsAlreadyActivated', true);
  });

  it('an unknown method without mmrpc: legacy auth errors, then v2 NoSuchMethod (or InvalidRequest for flat keys)', async () => {
    const { call } = setup();
    const wrong = await call({ userpass: 'wrong-guess-6', method: 'nope' });
    assert.deepEqual([wrong.status, wrong.body.error], [500, 'Userpass is invalid! - Rate Limit attempts left: 9']);
    assertV2Error(await call({ userpass: PASSWORD, method: 'nope', id: 1 }), 400, 'NoSuchMethod', false);
    const flat = await call({ userpass: PASSWORD, method: 'nope', coin: 'KMD' });
    assertV2Error(flat, 400, 'InvalidRequest', true);
    assert.equal(flat.body.error_data, 'coin: Unexpected property');
  });

  it('a request without a string method is a v2 InvalidRequest before auth', async () => {
    const { call } = setup();
    const res = await call({ userpass: 'wrong-guess-7' });
    assertV2Error(res, 400, 'InvalidRequest', true);
    assert.equal(res.body.error_data, 'method: Expected required property');
  });

  it('a name present in both forms answers legacy without mmrpc and v2 with it', async () => {
    const { call } = setup();
    assert.deepEqual((await call({ userpass: PASSWORD, method: 'get_enabled_coins' })).body, {
      result: [{ ticker: 'ETH', address: '0xabc' }],
    });
    assert.deepEqual((await call(v2('get_enabled_coins', {}))).body.result, { coins: [{ ticker: 'ETH' }] });
  });

  it('rejects a non-legacy entry in legacyMethods', () => {
    const { methods } = fakeMethods([]);
    assert.throws(
      () => createDispatcher({ methods, legacyMethods: { x: methods.enable_thing! }, auth: new AuthGuard({ rpcPassword: PASSWORD, clock: new ManualClock() }) }),
      TypeError,
    );
  });
});

describe('dispatcher: batches', () => {
  it('handles elements concurrently and answers in order with HTTP 200', async () => {
    const { call } = setup();
    // `slow` only finishes once `release` (a later element) has run: a sequential dispatcher would hang.
    const res = await Promise.race([
      call([v2('slow', {}, { id: 1 }), v2('release', {}, { id: 2 }), { userpass: PASSWORD, method: 'electrum', coin: 5 }, v2('nope', {}, { id: 4 })]),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('batch is not concurrent')), 2_000).unref()),
    ]);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 4);
    assert.deepEqual(res.body[0], { mmrpc: '2.0', result: 'slow done', id: 1 });
    assert.deepEqual(res.body[1], { mmrpc: '2.0', result: 'released', id: 2 });
    assert.deepEqual(res.body[2], { error: 'Error parsing request: coin: Expected string' });
    assert.equal(res.body[3].error_type, 'NoSuchMethod');
    assert.equal(res.body[3].id, 4);
  });

  it('keeps order when the first element is slower (real timers)', async () => {
    const { call } = setup();
    const first = call([v2('slow', {}, { id: 10 }), v2('get_enabled_coins', {}, { id: 11 })]);
    await new Promise((r) => setTimeout(r, 30));
    const second = await call(v2('release', {}));
    assert.equal(second.body.result, 'released');
    const res = await first;
    assert.deepEqual(
      res.body.map((b: { id: number }) => b.id),
      [10, 11],
    );
  });

  it('answers an empty batch with [] and a nested array element with InvalidRequest', async () => {
    const { call } = setup();
    assert.deepEqual(await call([]), { status: 200, body: [] });
    const res = await call([[v2('get_enabled_coins', {})], 'x']);
    assert.equal(res.status, 200);
    assert.equal(res.body[0].error_type, 'InvalidRequest');
    assert.equal(res.body[1].error_type, 'InvalidRequest');
  });
});

/**
 * `body` as JSON text with each `"DEEP:<n>"` string replaced by `n` arrays nested around a number
 * (`DEEP:2` → `[[1]]`, 2 levels). Written as text: `JSON.stringify` itself recurses per level.
 */
function withNesting(body: unknown): string {
  return JSON.stringify(body).replace(/"DEEP:(\d+)"/g, (_, n: string) => `${'['.repeat(Number(n))}1${']'.repeat(Number(n))}`);
}
const nested = (levels: number) => `DEEP:${levels}`;

describe('dispatcher: hostile bodies', () => {
  it('a batch of up to 1000 requests is answered element by element; a larger one is 413 as a whole, nothing routed', async () => {
    const { call, received } = setup();
    const full = await call(Array.from({ length: 1000 }, () => v2('get_enabled_coins', {})));
    assert.equal(full.status, 200);
    assert.equal(full.body.length, 1000);
    const seen = received.length;
    const tooMany = await call(Array.from({ length: 1001 }, () => ({ userpass: PASSWORD, method: 'electrum', coin: 'KMD' })));
    assert.deepEqual([tooMany.status, tooMany.body], [413, { error: 'A batch may hold at most 1000 requests; this one holds 1001' }]);
    const tiny = await call(`[${Array(500_000).fill('1').join(',')}]`);
    assert.deepEqual([tiny.status, tiny.body], [413, { error: 'A batch may hold at most 1000 requests; this one holds 500000' }]);
    assert.equal(received.length, seen, 'no element of a refused batch reached a method');
  });

  const TOO_DEEP = 'Error parsing request: (root): the body nests objects and arrays deeper than 127 levels';

  it('a legacy request nested deeper than 127 levels is a legacy InvalidRequest, before auth and schema', async () => {
    const { call, received } = setup();
    for (const levels of [127, 50_000]) {
      const res = await call(withNesting({ userpass: 'wrong-guess-deep', method: 'electrum', coin: 'KMD', mm2: nested(levels) }));
      assert.deepEqual([res.status, res.body], [500, { error: TOO_DEEP }]);
    }
    assert.equal((await call(withNesting({ userpass: PASSWORD, method: 'electrum', coin: 'KMD', mm2: nested(126) }))).status, 200, '127 levels pass');
    assert.equal(received.length, 1);
  });

  it('a v2 request (or a name without mmrpc that is not legacy) nested too deep is a v2 InvalidRequest 400 with its id', async () => {
    const { call } = setup();
    const res = await call(withNesting(v2('enable_thing', { ticker: 'ETH', nodes: [{ url: nested(40_000) }] }, { id: 4 })));
    assertV2Error(res, 400, 'InvalidRequest', true);
    assert.equal(res.body.error, TOO_DEEP);
    assert.equal(res.body.id, 4);
    const unknownName = await call(withNesting({ userpass: PASSWORD, method: 'nope', x: nested(200) }));
    assertV2Error(unknownName, 400, 'InvalidRequest', true);
    const badVersion = await call(withNesting({ mmrpc: '1.0', method: 'nope', x: nested(200) }));
    assertV2Error(badVersion, 400, 'InvalidMmRpcVersion', true);
  });

  it('a batch is the first level: each element is answered in its own form', async () => {
    const { call } = setup();
    const res = await call(
      withNesting([
        { userpass: PASSWORD, method: 'electrum', coin: 'KMD', mm2: nested(125) },
        { userpass: PASSWORD, method: 'electrum', coin: 'KMD', mm2: nested(126) },
        v2('get_enabled_coins', { deep: nested(30_000) }),
      ]),
    );
    assert.equal(res.status, 200);
    assert.equal(res.body[0].result, 'success');
    assert.deepEqual(res.body[1], { error: TOO_DEEP });
    assert.equal(res.body[2].error_type, 'InvalidRequest');
  });

  it('an unexpected failure of a legacy request answers in the legacy form', async () => {
    const { call } = setup();
    assert.deepEqual(await call({ userpass: PASSWORD, method: 'legacy_schema_bug' }), { status: 500, body: { error: 'Internal error' } });
  });

  it('a "__proto__" key of a legacy body stays a field: it never supplies the fields the schema requires', async () => {
    const { call, received } = setup();
    const res = await call(`{"userpass":"${PASSWORD}","method":"electrum","__proto__":{"coin":"KMD"}}`);
    assert.deepEqual([res.status, res.body], [500, { error: 'Error parsing request: coin: Expected required property' }]);
    assert.equal(received.length, 0);
  });
});

describe('dispatcher: lockout', () => {
  it('bans after 10 wrong attempts (even the right password), and lets the caller back after expiry', async () => {
    const { call, clock } = setup();
    for (let i = 0; i < 10; i++) await call(v2('get_enabled_coins', {}, { userpass: `wrong-guess-${i}` }));
    const banned = await call(v2('get_enabled_coins', {}, { id: 1 }));
    assertV2Error(banned, 403, 'Banned', true);
    assert.equal(banned.body.error_data, 30);
    const legacyBanned = await call({ userpass: PASSWORD, method: 'electrum', coin: 'KMD' });
    assert.equal(legacyBanned.status, 500);
    assert.deepEqual(Object.keys(legacyBanned.body), ['error']);
    assert.equal((await call(v2('get_enabled_coins', {}), '127.0.0.2')).status, 200, 'other callers unaffected');
    clock.advance(30_000);
    assert.equal((await call(v2('get_enabled_coins', {}))).status, 200);
  });

  it('logs auth refusals with the caller and type only', async () => {
    const { call, logs } = setup();
    await call(v2('get_enabled_coins', {}, { userpass: 'wrong-guess-x' }));
    assert.ok(logs.some((l) => l.includes('rpc auth refused') && l.includes('UserpassIsInvalid') && l.includes('127.0.0.1')));
  });
});
