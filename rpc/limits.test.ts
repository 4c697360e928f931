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

  it('decodes UTF-8 strictly', () => {
    assert.equal(decodeUtf8(Buffer.from('{"a":"é€😀"}')), '{"a":"é€😀"}');
    assert.equal(decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d])), undefined);
    assert.equal(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80])), undefined, 'an encoded lone surrogate is not UTF-8');
  });
});
