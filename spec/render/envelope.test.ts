import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { ActivationError } from '../errors.ts';
import {
  LegacyErrorSchema,
  LegacyRequestSchema,
  V2_ERROR_KEY_ORDER,
  V2ErrorSchema,
  V2RequestSchema,
  V2SuccessSchema,
} from '../envelope.ts';
import { errorOrigin, renderLegacyError, renderV2Error, renderV2Success, renderV2SuccessText, responseId } from './envelope.ts';
import { parseJsonBody, safeJsonErrorMessage } from '../../rpc/json.ts';

const origin = errorOrigin('dispatcher', 'lookup');

describe('renderV2Success', () => {
  it('has keys mmrpc, result, id and echoes the id', () => {
    const body = renderV2Success({ a: 1 }, 7);
    assert.deepEqual(Object.keys(body), ['mmrpc', 'result', 'id']);
    assert.deepEqual(body, { mmrpc: '2.0', result: { a: 1 }, id: 7 });
    assert.ok(Value.Check(V2SuccessSchema, body));
  });

  it('renders the same text around a result serialised already as serialising the whole answer', () => {
    for (const result of [null, 'success', 0, { status: 'InProgress', details: 'x"\u2028' }, [1, { a: [] }]]) {
      for (const id of [null, 0, 7, Number.MAX_SAFE_INTEGER]) {
        assert.equal(renderV2SuccessText(JSON.stringify(result), id), JSON.stringify(renderV2Success(result, id)));
      }
    }
  });

  it('sends an undefined result as null and a missing id as null', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(renderV2Success(undefined, null))), { mmrpc: '2.0', result: null, id: null });
  });
});

describe('renderV2Error', () => {
  it('orders keys mmrpc, error, error_path, error_trace, error_type, error_data, id', () => {
    const body = renderV2Error(new ActivationError('PlatformIsAlreadyActivated', 'ETH', 'ETH'), 3, origin);
    assert.deepEqual(Object.keys(body), [...V2_ERROR_KEY_ORDER]);
    assert.deepEqual(body, {
      mmrpc: '2.0',
      error: 'ETH',
      error_path: 'rpc.dispatcher',
      error_trace: 'dispatcher:lookup]',
      error_type: 'PlatformIsAlreadyActivated',
      error_data: 'ETH',
      id: 3,
    });
    assert.ok(Value.Check(V2ErrorSchema, body));
  });

  it('omits error_data (the key, not just the value) when the error carries nothing', () => {
    const body = renderV2Error(new ActivationError('NoSuchMethod', 'No such method'), null, origin);
    assert.deepEqual(Object.keys(body), ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'id']);
    assert.ok(!('error_data' in JSON.parse(JSON.stringify(body))));
  });

  it('keeps falsy data that is not undefined (0, null, "")', () => {
    for (const data of [0, null, '']) {
      const body = renderV2Error(new ActivationError('TaskFinished', 'finished', data), null, origin);
      assert.ok('error_data' in body);
      assert.equal(body.error_data, data);
    }
  });
});

describe('renderLegacyError', () => {
  it('is {"error": message}', () => {
    const body = renderLegacyError(new ActivationError('CoinIsAlreadyActivated', 'Coin KMD already initialized'));
    assert.deepEqual(body, { error: 'Coin KMD already initialized' });
    assert.ok(Value.Check(LegacyErrorSchema, body));
  });

  it('appends legacyFields after error, which they cannot override', () => {
    const err = new ActivationError('NoSuchCoin', 'No such coin: ETH', undefined, {
      legacyFields: { error: 'hijack', orders: { matching: [], cancelled: [] }, active_swaps: [] },
    });
    const body = renderLegacyError(err);
    assert.deepEqual(Object.keys(body), ['error', 'orders', 'active_swaps']);
    assert.equal(body.error, 'No such coin: ETH');
  });
});

describe('errorOrigin / responseId', () => {
  it('produces short strings without paths, spaces or newlines', () => {
    const o = errorOrigin('handler', '/home/me/src/x.ts:12\n at foo (bar)'.repeat(10));
    assert.match(o.path, /^[A-Za-z0-9_.:-]+$/);
    assert.match(o.trace, /^[A-Za-z0-9_.:-]+\]$/);
    assert.ok(!o.trace.includes('/'));
    assert.ok(o.trace.length <= 'handler:'.length + 64 + 1);
  });

  it('echoes only non-negative safe integers', () => {
    assert.equal(responseId(0), 0);
    assert.equal(responseId(42), 42);
    for (const v of [-1, 1.5, '1', null, undefined, 2 ** 60, {}]) assert.equal(responseId(v), null);
  });
});

describe('envelope schemas (spec/envelope.ts)', () => {
  const base = { mmrpc: '2.0', userpass: 'x', method: 'm', params: {}, id: 1 };
  it('v2 request allows only mmrpc, userpass, method, params, id', () => {
    assert.ok(Value.Check(V2RequestSchema, base));
    assert.ok(Value.Check(V2RequestSchema, { mmrpc: '2.0', method: 'm' }), 'userpass/params/id may be absent');
    assert.ok(!Value.Check(V2RequestSchema, { ...base, extra: 1 }));
    assert.ok(!Value.Check(V2RequestSchema, { ...base, mmrpc: '1.0' }));
  });

  it('v2 request id is a non-negative integer, null or absent', () => {
    assert.ok(Value.Check(V2RequestSchema, { ...base, id: 0 }));
    assert.ok(Value.Check(V2RequestSchema, { ...base, id: null }));
    for (const id of [-1, 1.5, '1']) assert.ok(!Value.Check(V2RequestSchema, { ...base, id }));
  });

  it('legacy request is flat with a string method', () => {
    assert.ok(Value.Check(LegacyRequestSchema, { userpass: 'x', method: 'electrum', coin: 'KMD', servers: [] }));
    assert.ok(!Value.Check(LegacyRequestSchema, { userpass: 'x', coin: 'KMD' }));
  });
});

describe('parseJsonBody', () => {
  it('never quotes the input in its message', () => {
    const secret = 'hunter2-Secret!';
    for (const text of [secret, `{"userpass":"${secret}"`, `{userpass:"${secret}"}`, `"${secret}`, `[1,] ${secret}`, `{"a":tru} ${secret}`]) {
      const r = parseJsonBody(text);
      assert.equal(r.ok, false);
      if (r.ok) continue;
      assert.ok(!r.message.includes('hunter'), r.message);
      assert.ok(!r.message.includes('Secret'), r.message);
    }
  });

  it('names the line and column when the engine gives a position', () => {
    assert.deepEqual(parseJsonBody('{\n "a": 01}'), { ok: false, message: 'Unexpected number at line 2 column 8' });
    assert.equal(safeJsonErrorMessage(new SyntaxError('Unexpected token h in JSON at position 0'), 'h'), 'Unexpected token at line 1 column 1');
    const r = parseJsonBody('');
    assert.ok(!r.ok && /end of JSON input/.test(r.message));
  });

  it('parses valid JSON', () => {
    assert.deepEqual(parseJsonBody('[1,{"a":null}]'), { ok: true, value: [1, { a: null }] });
  });
});
