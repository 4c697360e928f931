import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNodeSettings } from './nodeConfig.ts';
import { isConfigError } from './configError.ts';

const base = { rpc_password: 'Str0ng-Pass!x' };
const parse = (extra: Record<string, unknown>) => parseNodeSettings({ ...base, ...extra }, 'MM2.json', '/srv/node');

test('metrics: protected by default; public only when MM2.json says metrics.public true', () => {
  assert.deepEqual(parse({}).metrics, { public: false });
  assert.deepEqual(parse({ metrics: {} }).metrics, { public: false });
  assert.deepEqual(parse({ metrics: { public: true } }).metrics, { public: true });
  assert.deepEqual(parse({ metrics: { public: false } }).metrics, { public: false });
});

const bad: [string, unknown, string][] = [
  ['not an object', true, 'metrics'],
  ['public not a boolean', { public: 'yes' }, 'metrics.public'],
  ['an unknown key (a typo must not leave it protected or open silently)', { pubic: true }, 'metrics.pubic'],
];
for (const [name, metrics, key] of bad) {
  test(`bad metrics config (${name}) stops start-up naming ${key}`, () => {
    assert.throws(
      () => parse({ metrics }),
      (e) => isConfigError(e) && e.key === key && e.message.startsWith(`MM2.json: ${key}: `),
    );
  });
}
