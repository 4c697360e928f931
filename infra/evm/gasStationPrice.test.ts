import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gasPriceFromStation } from './gasStationPrice.ts';

const GWEI = 10n ** 9n;

test("the reference's vectors: ethgasstation (decimals 8) and Polygon (decimals 9)", () => {
  const answer = { average: 500, fast: 1000 };
  assert.equal(gasPriceFromStation(answer, 8, 'MeanAverageFast'), 75n * GWEI);
  assert.equal(gasPriceFromStation(answer, 9, 'Average'), 500n * GWEI);
  assert.equal(gasPriceFromStation(answer, 8, 'Average'), 50n * GWEI);
});

test('Polygon names average "standard"; decimal strings are read exactly', () => {
  assert.equal(gasPriceFromStation({ standard: 30.5, fast: 40 }, 9, 'Average'), 30_500_000_000n);
  assert.equal(gasPriceFromStation({ average: '0.0000000019', fast: '0' }, 9, 'Average'), 1n);
  assert.equal(gasPriceFromStation({ average: '0.123456789123', fast: 1 }, 18, 'Average'), 123_456_789_123_000_000n);
});

test('the mean is exact until the final truncation', () => {
  // (1 + 2) / 2 = 1.5 units at decimals 0 → 1 wei (truncated), not 2
  assert.equal(gasPriceFromStation({ average: 1, fast: 2 }, 0, 'MeanAverageFast'), 1n);
  // (0.1 + 0.25) / 2 × 10^3 = 175 exactly
  assert.equal(gasPriceFromStation({ average: 0.1, fast: 0.25 }, 3, 'MeanAverageFast'), 175n);
  assert.equal(gasPriceFromStation({ average: 1e21, fast: 1e21 }, 0, 'MeanAverageFast'), 10n ** 21n);
});

test('an answer without usable numbers is refused, saying which', () => {
  assert.throws(() => gasPriceFromStation([1, 2], 8, 'Average'), /not a JSON object/);
  assert.throws(() => gasPriceFromStation({ fast: 10 }, 8, 'Average'), /"average" \(or "standard"\)/);
  assert.throws(() => gasPriceFromStation({ average: 10 }, 8, 'Average'), /"fast"/);
  assert.throws(() => gasPriceFromStation({ average: -1, fast: 2 }, 8, 'Average'), /"average"/);
  assert.throws(() => gasPriceFromStation({ average: 'lots', fast: 2 }, 8, 'Average'), /"average" \(or "standard"\) is not a non-negative decimal number \(got "lots"\)/);
  assert.throws(() => gasPriceFromStation({ average: '1e999', fast: 2 }, 8, 'Average'), /"average"/);
});
