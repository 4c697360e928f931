import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_PASSWORD, enableEthParams, startStack, type Stack } from '../devnet/testing/stack.ts';

let s: Stack;
before(async () => {
  s = await startStack({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 7_000_000n }] });
});
after(() => s.stop());

test('v2 error envelope: key order, id echo, error_data absent for unit variants', async () => {
  const { status, body } = await s.post({ mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'no_such_method', params: {}, id: 42 });
  assert.equal(status, 400);
  assert.deepEqual(Object.keys(body), ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'id']);
  assert.equal(body.error_type, 'NoSuchMethod');
  assert.equal(body.id, 42);
  const found = await s.post({ mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'enable_eth_with_tokens', params: enableEthParams(s, [], { ticker: 'NOPE' }), id: 7 });
  assert.deepEqual(Object.keys(found.body), ['mmrpc', 'error', 'error_path', 'error_trace', 'error_type', 'error_data', 'id']);
  assert.equal(found.body.id, 7);
});

test('auth runs before method lookup; wrong password counts down; legacy requests get legacy auth errors', async () => {
  const missing = await s.post({ mmrpc: '2.0', method: 'get_enabled_coins', params: {} });
  assert.equal(missing.status, 403);
  assert.equal(missing.body.error_type, 'UserpassIsNotSet');
  const wrong = await s.post({ mmrpc: '2.0', userpass: 'nope', method: 'no_such_method', params: {} });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.body.error_type, 'UserpassIsInvalid');
  assert.deepEqual(wrong.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 });
  const legacy = await s.post({ userpass: 'nope', method: 'get_enabled_coins' });
  assert.equal(legacy.status, 500); // every legacy error is 500 (docs/compatibility.md §3)
  assert.deepEqual(Object.keys(legacy.body), ['error']);
  assert.match(legacy.body.error, /Userpass is invalid/);
  assert.equal(JSON.stringify([missing, wrong, legacy]).includes(TEST_PASSWORD), false);
  // a correct password still works (the lockout needs 10 failures)
  assert.equal((await s.legacy('get_enabled_coins')).status, 200);
});

test('mmrpc other than 2.0 is InvalidMmRpcVersion before auth; unknown top-level key is InvalidRequest', async () => {
  const version = await s.post({ mmrpc: '1.0', method: 'get_enabled_coins', params: {} });
  assert.equal(version.status, 400);
  assert.equal(version.body.error_type, 'InvalidMmRpcVersion');
  const extra = await s.post({ mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'get_enabled_coins', params: {}, surprise: 1 });
  assert.equal(extra.status, 400);
  assert.equal(extra.body.error_type, 'InvalidRequest');
});

test('a body that is not JSON is HTTP 500 {"error"}', async () => {
  const res = await fetch(s.service.url, { method: 'POST', body: '{"userpass": oops' });
  assert.equal(res.status, 500);
  assert.deepEqual(Object.keys((await res.json()) as object), ['error']);
});

test('a batch mixes v2 and legacy answers, in order, HTTP 200', async () => {
  const { status, body } = await s.post([
    { mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'enable_eth_with_tokens', params: enableEthParams(s, ['USDT-ERC20']) },
    { userpass: TEST_PASSWORD, method: 'my_balance', coin: 'NOPE' },
    { mmrpc: '2.0', userpass: 'wrong', method: 'get_enabled_coins', params: {} },
  ]);
  assert.equal(status, 200);
  assert.equal(body.length, 3);
  assert.equal(body[0].mmrpc, '2.0');
  assert.ok(body[0].result.erc20_addresses_infos);
  assert.deepEqual(body[1], { error: 'No such coin: NOPE' });
  assert.equal(body[2].error_type, 'UserpassIsInvalid');
  const balance = await s.legacy('my_balance', { coin: 'USDT-ERC20' });
  assert.equal(balance.body.balance, '7');
});
