import { test } from 'node:test';
import assert from 'node:assert/strict';
import { int64, parseJsonExact } from './tronHttp.ts';

test('parseJsonExact keeps int64 values beyond 2^53 exact, and leaves everything else alone', () => {
  const text = '{"balance":1234500000000000001,"small":42,"neg":-9223372036854775808,"frac":1.12345678901234567,"exp":1e17,"s":"digits 12345678901234567890 stay","a":[98765432109876543210]}';
  const parsed = parseJsonExact(text) as Record<string, unknown>;
  assert.equal(parsed['balance'], '1234500000000000001');
  assert.equal(parsed['small'], 42);
  assert.equal(parsed['neg'], '-9223372036854775808');
  assert.equal(parsed['frac'], 1.12345678901234567);
  assert.equal(parsed['exp'], 1e17);
  assert.equal(parsed['s'], 'digits 12345678901234567890 stay');
  assert.deepEqual(parsed['a'], ['98765432109876543210']);
  assert.equal(int64(parsed['balance']), 1_234_500_000_000_000_001n);
  assert.equal(int64(parsed['small']), 42n);
});

test('parseJsonExact handles escaped quotes inside strings and rejects non-JSON', () => {
  assert.deepEqual(parseJsonExact('{"k":"a \\"12345678901234567\\" b","n":12345678901234567}'), { k: 'a "12345678901234567" b', n: '12345678901234567' });
  assert.equal(parseJsonExact('<html>busy</html>'), undefined);
  assert.equal(parseJsonExact(''), undefined);
});

test('int64 refuses what is not an exact integer', () => {
  for (const bad of [1.5, 2 ** 60, '1e3', '', null, undefined, {}]) assert.equal(int64(bad), undefined, String(bad));
});
