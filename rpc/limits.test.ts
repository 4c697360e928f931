import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeUtf8, nestsDeeperThan } from './limits.ts';

/** `n` levels of `wrap` around a number. */
function nested(n: number, wrap: (inner: unknown) => unknown = (v) => [v]): unknown {
  let value: unknown = 1;
  for (let i = 0; i < n; i++) value = wrap(value);
  return value;
}

describe('body limits', () => {
  it('counts levels of objects and arrays; scalars are no level', () => {
    assert.equal(nestsDeeperThan('x', 0), false);
    assert.equal(nestsDeeperThan(null, 0), false);
    assert.equal(nestsDeeperThan({}, 1), false);
    assert.equal(nestsDeeperThan({}, 0), true);
    assert.equal(nestsDeeperThan({ a: [1, 'x', null] }, 2), false);
    assert.equal(nestsDeeperThan({ a: [1, [2]] }, 2), true);
    assert.equal(nestsDeeperThan(nested(127, (v) => ({ k: v })), 127), false);
    assert.equal(nestsDeeperThan(nested(128, (v) => ({ k: v })), 127), true);
  });

  it('finds the deep member among wide siblings, at any position', () => {
    const wide: { a: unknown[] }[] = Array.from({ length: 1000 }, () => ({ a: [1] }));
    assert.equal(nestsDeeperThan(wide, 3), false);
    wide[500] = { a: [[1]] };
    assert.equal(nestsDeeperThan(wide, 3), true);
  });

  it('never recurses: a million levels are measured without overflowing the stack', () => {
    assert.equal(nestsDeeperThan(nested(1_000_000), 127), true);
    assert.equal(nestsDeeperThan(nested(1_000_000), 2_000_000), false);
  });

  it('answers as a plain recursive count of levels, for random shapes 1 to 40 levels deep', () => {
    // Reference: the deepest level in `value`, counted recursively (small shapes only).
    const levels = (v: unknown): number =>
      typeof v !== 'object' || v === null ? 0 : 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(levels));
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const shape = (depth: number): unknown => {
      if (depth === 0) return random() < 0.5 ? 1 : 'x';
      const members = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => (i === 0 ? shape(depth - 1) : shape(Math.floor(random() * depth))));
      return random() < 0.5 ? members : Object.fromEntries(members.map((m, i) => [i === 1 ? '__proto__' : `k${i}`, m]));
    };
    for (let depth = 1; depth <= 40; depth++) {
      const value = shape(depth);
      const deepest = levels(value);
      for (const max of [deepest - 1, deepest, deepest + 1, 127]) {
        assert.equal(nestsDeeperThan(value, max), deepest > max, `${deepest} levels against ${max}`);
      }
    }
  });

  it('decodes UTF-8 strictly', () => {
    assert.equal(decodeUtf8(Buffer.from('{"a":"é€😀"}')), '{"a":"é€😀"}');
    assert.equal(decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d])), undefined);
    assert.equal(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80])), undefined, 'an encoded lone surrogate is not UTF-8');
  });
});
