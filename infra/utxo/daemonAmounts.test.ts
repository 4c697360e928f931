import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amountField, formatCoinAmount, parseCoinAmount, parseRpcJsonExact } from './daemonAmounts.ts';

test('decimal LTC ⇄ litoshis is exact where doubles are not', () => {
  assert.equal(parseCoinAmount('80000000.00000005'), 8_000_000_000_000_005n);
  assert.equal(JSON.parse('80000000.00000005').toFixed(8), '80000000.00000004'); // a double cannot hold it
  assert.equal(parseCoinAmount('50'), 5_000_000_000n);
  assert.equal(parseCoinAmount('-0.00000001'), -1n);
  assert.throws(() => parseCoinAmount('0.000000001'));
  assert.throws(() => parseCoinAmount('1e-8'));
  assert.equal(formatCoinAmount(123_456_789n), '1.23456789');
  assert.equal(formatCoinAmount(-1n), '-0.00000001');
  assert.equal(formatCoinAmount(5_000_000_000n), '50.00000000');
});

test('parseRpcJsonExact keeps amount fields as text and leaves everything else alone', () => {
  const text = '{"result":{"vout":[{"value":80000000.00000005,"n":0,"scriptPubKey":{"asm":"\\"value\\":1.5"}}],"fees":{"base":0.00001410},"size":225,"difficulty":4.6e-10},"error":null}';
  const parsed = parseRpcJsonExact(text) as { result: { vout: { value: unknown; n: number; scriptPubKey: { asm: string } }[]; fees: { base: unknown }; size: number; difficulty: number } };
  assert.equal(amountField(parsed.result.vout[0]!.value), 8_000_000_000_000_005n);
  assert.equal(amountField(parsed.result.fees.base), 1_410n);
  assert.equal(parsed.result.vout[0]!.n, 0);
  assert.equal(parsed.result.vout[0]!.scriptPubKey.asm, '"value":1.5');
  assert.equal(parsed.result.size, 225);
  assert.equal(parsed.result.difficulty, 4.6e-10);
});
