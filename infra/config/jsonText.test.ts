import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeJsonFailure, parseJsonText } from './jsonText.ts';

const BAD = [
  '{"a": 1,}',
  '{"a" 1}',
  '{"a": 1 "b": 2}',
  '[1, 2',
  '[1 2]',
  '{"a": tru}',
  '{"a": "x\\q"}',
  '{"a": "x\ty"}',
  '"abc',
  '{"a": 01}',
  '{"a": -}',
  '[1] x',
  '',
  '   ',
  '{',
  "{'a': 1}",
  '{"a": secret}',
];

describe('parseJsonText', () => {
  it('parses valid JSON and ignores a byte-order mark', () => {
    assert.deepEqual(parseJsonText('{"a": [1, "x", null, true, -1.5e3]}'), {
      ok: true,
      value: { a: [1, 'x', null, true, -1500] },
    });
    assert.deepEqual(parseJsonText('\uFEFF[]'), { ok: true, value: [] });
  });

  it('agrees with the position V8 reports whenever V8 reports one', () => {
    for (const text of BAD) {
      const result = parseJsonText(text);
      assert.equal(result.ok, false, text);
      if (result.ok) continue;
      const v8 = (() => {
        try {
          JSON.parse(text);
        } catch (e) {
          return /at position (\d+)/.exec((e as Error).message)?.[1];
        }
        return undefined;
      })();
      if (v8 !== undefined) assert.equal(result.position, Number(v8), `${JSON.stringify(text)}: ${result.reason}`);
      assert.ok(result.position <= text.length);
    }
  });

  it('gives line and column, and never quotes the input', () => {
    const result = parseJsonText('{\n  "a": 1,\n  "b": hunter2\n}');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual([result.line, result.column], [3, 8]);
    const text = describeJsonFailure(result);
    assert.equal(text, 'unexpected character at line 3, column 8 (position 19)');
    for (const bad of BAD) {
      const r = parseJsonText(bad);
      if (!r.ok) assert.ok(!/secret|tru\b|'a'/.test(describeJsonFailure(r)));
    }
  });

  it('survives very deep nesting', () => {
    const result = parseJsonText('['.repeat(200_000));
    assert.equal(result.ok, false);
  });
});
