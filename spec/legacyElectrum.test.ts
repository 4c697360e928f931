import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyElectrumParams } from './legacyElectrum.ts';
import { legacyEnableParams } from './legacyEnable.ts';

const decode = (schema: typeof legacyElectrumParams | typeof legacyEnableParams, fields: Record<string, unknown>) =>
  schema.decode({ coin: 'KMD', ...fields });

describe('legacy electrum / enable params (spec 4.6, 4.7)', () => {
  test('utxo_merge_params has the reference shape: merge_at required, check_every and max_merge_at_once optional', () => {
    for (const schema of [legacyElectrumParams, legacyEnableParams]) {
      for (const good of [{ merge_at: 50 }, { merge_at: 50, check_every: 0.5, max_merge_at_once: 25 }]) {
        const decoded = decode(schema, { utxo_merge_params: good });
        assert.ok(decoded.ok, JSON.stringify(good));
        assert.deepEqual(decoded.value.utxo_merge_params, good);
      }
      const problems: [unknown, string, string][] = [
        [{}, 'utxo_merge_params.merge_at', 'Expected required property'],
        [{ merge_at: '50' }, 'utxo_merge_params.merge_at', 'Expected integer'],
        [{ merge_at: -1 }, 'utxo_merge_params.merge_at', 'Expected integer to be greater or equal to 0'],
        [{ merge_at: 50, check_every: 0 }, 'utxo_merge_params.check_every', 'Expected number to be greater than 0'],
        [{ merge_at: 50, max_merge_at_once: 2.5 }, 'utxo_merge_params.max_merge_at_once', 'Expected integer'],
        ['merge', 'utxo_merge_params', 'Expected object or null'],
      ];
      for (const [value, field, message] of problems) {
        assert.deepEqual(decode(schema, { utxo_merge_params: value }), { ok: false, problem: { field, message } }, JSON.stringify(value));
      }
    }
  });

  test('null means left out: utxo_merge_params and the swap contracts', () => {
    for (const schema of [legacyElectrumParams, legacyEnableParams]) {
      assert.ok(decode(schema, { utxo_merge_params: null, swap_contract_address: null, fallback_swap_contract: null }).ok);
      assert.deepEqual(decode(schema, { fallback_swap_contract: 7 }), { ok: false, problem: { field: 'fallback_swap_contract', message: 'Expected string or null' } });
    }
  });
});
