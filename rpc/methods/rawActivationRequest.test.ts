import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { compile } from '../../spec/validate.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import type { ActivationRequest } from '../../actors/coinRequests.ts';
import { invokeLegacy, invokeV2, type InvokeContext } from '../invoke.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { admitActivation, rawActivationRequest } from './rawActivationRequest.ts';

describe('rawActivationRequest: the tickers admission reads before the schema', () => {
  test('legacy forms: `coin`, never tokens (a stray erc20_tokens_requests is not theirs)', () => {
    const raw = { coin: 'ETH', urls: 'not an array', erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }] };
    assert.deepEqual(rawActivationRequest(raw, ActivationVia.Enable), { ticker: 'ETH', via: ActivationVia.Enable, tokens: [] });
    assert.deepEqual(rawActivationRequest({ coin: 'LTC' }, ActivationVia.Electrum), { ticker: 'LTC', via: ActivationVia.Electrum, tokens: [] });
    assert.equal(rawActivationRequest({ ticker: 'ETH' }, ActivationVia.Enable), undefined, 'the legacy coin field is `coin`');
  });

  test('v2 forms: `ticker` and every string ticker of erc20_tokens_requests, whatever else is wrong', () => {
    const raw = { ticker: 'ETH', nodes: 7, erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }, 'junk', null, { ticker: 5 }, { ticker: 'DAI-ERC20', x: [] }] };
    assert.deepEqual(rawActivationRequest(raw, ActivationVia.EnableEthWithTokens), {
      ticker: 'ETH',
      via: ActivationVia.EnableEthWithTokens,
      tokens: ['USDT-ERC20', 'DAI-ERC20'],
    });
    assert.deepEqual(rawActivationRequest({ ticker: 'TRX', erc20_tokens_requests: 'x' }, ActivationVia.EnableEthTask)?.tokens, []);
  });

  test('no string coin, or not an object: nothing to admit (the schema answers)', () => {
    for (const raw of [null, 'ETH', [], { ticker: 1 }, {}]) assert.equal(rawActivationRequest(raw, ActivationVia.EnableEthWithTokens), undefined);
    assert.equal(rawActivationRequest({ coin: ['ETH'] }, ActivationVia.Enable), undefined);
  });
});

describe('a method with admit: refused before its schema, in its own form', () => {
  const asked: ActivationRequest[] = [];
  const active = new Set(['ETH']);
  const assertCanActivate = (request: ActivationRequest) => {
    asked.push(request);
    if (active.has(request.ticker)) throw new ActivationError(ErrorType.PlatformIsAlreadyActivated, `Coin ${request.ticker} already initialized`, request.ticker);
  };
  const handled: unknown[] = [];
  const params = compile(Type.Object({ coin: Type.String(), urls: Type.Array(Type.String()) }));
  const legacy = defineMethod({
    version: RpcVersion.Legacy,
    params,
    admit: admitActivation(assertCanActivate, ActivationVia.Enable),
    handle: (p) => (handled.push(p), { result: 'success' }),
  });
  const v2 = defineMethod({
    version: RpcVersion.V2,
    params: compile(Type.Object({ ticker: Type.String() })),
    admit: admitActivation(assertCanActivate, ActivationVia.EnableEthWithTokens),
    handle: (p) => (handled.push(p), 'ok'),
  });
  const ctx: InvokeContext = {
    name: 'enable',
    caller: { clientId: 'test' },
    auth: { redact: (text: string) => text } as unknown as InvokeContext['auth'],
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    request: {},
  };

  test('an active coin with bad other fields: the already-activated answer, not the schema problem; the handler never runs', () => {
    const answer = invokeLegacy(legacy, { coin: 'ETH', urls: 'not an array' }, ctx);
    assert.deepEqual(answer, { status: 500, body: { error: 'Coin ETH already initialized' } });
    const v2Answer = invokeV2(v2, { ticker: 'ETH', erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }] }, 3, ctx) as { status: number; body: any };
    assert.equal(v2Answer.status, 400);
    assert.equal(v2Answer.body.error_type, 'PlatformIsAlreadyActivated');
    assert.equal(v2Answer.body.id, 3);
    assert.deepEqual(handled, []);
    assert.deepEqual(asked.slice(-1), [{ ticker: 'ETH', via: ActivationVia.EnableEthWithTokens, tokens: ['USDT-ERC20'] }]);
  });

  test('a free coin: the schema then checks the request as before', () => {
    const answer = invokeLegacy(legacy, { coin: 'LTC', urls: 'not an array' }, ctx) as { status: number; body: any };
    assert.equal(answer.status, 500);
    assert.match(answer.body.error, /urls/);
    assert.deepEqual(invokeLegacy(legacy, { coin: 'LTC', urls: [] }, ctx), { status: 200, body: { result: 'success' } });
    assert.deepEqual(handled, [{ coin: 'LTC', urls: [] }]);
  });
});
