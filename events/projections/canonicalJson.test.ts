import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalDigestOfSortedEntries, canonicalJson } from './canonicalJson.ts';

/** The definition, independent of the implementation: JSON.stringify of a copy with sorted keys. */
function reference(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  };
  return JSON.stringify(sorted(value));
}

const VALUES: unknown[] = [
  { b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } },
  { z: [undefined, null, Number.NaN, -0, 1e21, 0.1, () => 1], 'ü': 'ü', 'a"b': 'line\nbreak\u0001', '😀': '\u2028', '': {} },
  [[], {}, [{ y: 2, x: [1, { b: undefined, a: null }] }]],
  { when: new Date(0), nested: { deeper: { deepest: [true, false, 'x'] } } },
  'text',
  42,
  null,
];

test('canonical JSON is JSON.stringify of a copy with keys sorted at every level', () => {
  for (const value of VALUES) assert.equal(canonicalJson(value), reference(value), reference(value));
  assert.equal(canonicalJson(undefined), undefined);
});

test('the digest of sorted entries is the sha256 of the canonical JSON of their object, across slices', () => {
  const entries: [string, unknown][] = [];
  for (let i = 0; i < 6_000; i++) entries.push([`key.${String(i).padStart(5, '0')}`, i % 7 === 0 ? undefined : { n: i, v: VALUES[i % VALUES.length] }]);
  const expected = (e: [string, unknown][]) => `sha256:${createHash('sha256').update(reference(Object.fromEntries(e))).digest('hex')}`;
  assert.ok(reference(Object.fromEntries(entries)).length > 3 * 65_536, 'the text spans several slices');
  assert.equal(canonicalDigestOfSortedEntries(entries), expected(entries));
  assert.equal(canonicalDigestOfSortedEntries([]), expected([]));
  assert.equal(canonicalDigestOfSortedEntries([['only', undefined]]), expected([['only', undefined]]));
});
