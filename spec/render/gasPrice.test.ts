import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gweiOf } from './gasPrice.ts';

test('gas_price_gwei is the wei price over 10^9, exact, no trailing zeros', () => {
  // 1 gwei = 10^9 wei (by definition of the unit); values beyond 2^53 stay exact
  const cases: [string, string][] = [
    ['0', '0'],
    ['1', '0.000000001'],
    ['1000000000', '1'],
    ['75000000001', '75.000000001'],
    ['860000000000', '860'],
    ['123456789012345678901234567890', '123456789012345678901.23456789'],
  ];
  for (const [wei, gwei] of cases) assert.equal(gweiOf(wei), gwei, wei);
});
