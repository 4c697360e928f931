import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNodeSettings } from './nodeConfig.ts';
import { isConfigError } from './configError.ts';

const base = { rpc_password: 'Str0ng-Pass!x' };
const parse = (extra: Record<string, unknown>) => parseNodeSettings({ ...base, ...extra }, 'MM2.json', '/srv/node');

test('wire_names: neutral by default; reference when MM2.json says so', () => {
  assert.equal(parse({}).wireNames, 'neutral');
  assert.equal(parse({ wire_names: 'neutral' }).wireNames, 'neutral');
  assert.equal(parse({ wire_names: 'reference' }).wireNames, 'reference');
  assert.equal('wire_names' in parse({ wire_names: 'reference' }).extras, false, 'a known key, not an extra');
});

for (const value of ['Reference', 'trezor', 'kdf', true, null, ['reference']]) {
  test(`wire_names ${JSON.stringify(value)} stops start-up naming the key and the two values`, () => {
    assert.throws(
      () => parse({ wire_names: value }),
      (e) =>
        isConfigError(e) &&
        e.key === 'wire_names' &&
        e.message === 'MM2.json: wire_names: must be "neutral" (the spec\'s names, the default) or "reference" (the reference implementation\'s names, e.g. WaitingForTrezorToConnect)',
    );
  });
}
