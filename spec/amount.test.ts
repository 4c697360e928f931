import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAmount, parseAmount } from './amount.ts';

test('formats exact decimal strings without trailing zeros', () => {
  assert.equal(formatAmount(0n, 18), '0');
  assert.equal(formatAmount(1n, 18), '0.000000000000000001');
  assert.equal(formatAmount(10n ** 18n, 18), '1');
  assert.equal(formatAmount(1_500_000n, 6), '1.5');
  assert.equal(formatAmount(123n, 0), '123');
  assert.equal(formatAmount(-2_050n, 3), '-2.05');
});

test('keeps precision far beyond a double', () => {
  const raw = 123_456_789_012_345_678_901_234_567_890n;
  assert.equal(formatAmount(raw, 18), '123456789012.34567890123456789');
  assert.equal(parseAmount(formatAmount(raw, 18), 18), raw);
});

test('rejects bad decimals and malformed or over-precise text', () => {
  assert.throws(() => formatAmount(1n, -1), RangeError);
  assert.throws(() => formatAmount(1n, 1.5), RangeError);
  assert.throws(() => parseAmount('1e5', 18), RangeError);
  assert.throws(() => parseAmount('0.123', 2), RangeError);
});
