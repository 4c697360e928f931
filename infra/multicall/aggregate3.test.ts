import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder, Interface } from 'ethers';
import { aggregate3Call, decodeAggregate3 } from './aggregate3.ts';

// ethers' generic ABI coder, from Multicall3's published signature: the independent reference.
const published = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const TOKEN = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const OTHER = '0xcA11bde05977b3631167028862bE2a173976CA11';
// balanceOf(0xf5c3…102d), decimals(), an empty call and 33 bytes (a padded second word).
const CALLS = [
  '0x70a08231000000000000000000000000f5c3bf03cba4e343484588932e423a7c8bff102d',
  '0x313ce567',
  '0x',
  `0x${'ab'.repeat(33)}`,
];

describe('aggregate3 call data', () => {
  test('Given calls of every length, When encoded, Then the bytes are what ethers encodes for the published ABI', () => {
    const items = CALLS.map((callData, i) => ({ target: i % 2 === 0 ? TOKEN : OTHER, callData }));
    const expected = published.encodeFunctionData('aggregate3', [items.map((item) => ({ ...item, allowFailure: true }))]);
    assert.equal(aggregate3Call(items), expected);
  });

  test('Given no calls, When encoded, Then it is ethers\' encoding of an empty array', () => {
    assert.equal(aggregate3Call([]), published.encodeFunctionData('aggregate3', [[]]));
  });

  test('Given a malformed target or call data, When encoded, Then it throws', () => {
    assert.throws(() => aggregate3Call([{ target: '0x1234', callData: '0x' }]), TypeError);
    assert.throws(() => aggregate3Call([{ target: TOKEN, callData: '0x123' }]), TypeError);
  });
});

describe('aggregate3 answer', () => {
  const outcomes = [
    { success: true, returnData: `0x${'00'.repeat(31)}2a` },
    { success: false, returnData: '0x08c379a0' },
    { success: true, returnData: '0x' },
    { success: true, returnData: `0x${'cd'.repeat(40)}` },
  ];
  const answer = AbiCoder.defaultAbiCoder().encode(['(bool,bytes)[]'], [outcomes.map((o) => [o.success, o.returnData])]);

  test('Given an answer ethers encoded, When decoded, Then every outcome is read back', () => {
    assert.deepEqual(decodeAggregate3(answer, outcomes.length), outcomes);
  });

  test('Given an answer of another length, no code, or not words, When decoded, Then it is not an aggregate3 answer', () => {
    assert.equal(decodeAggregate3(answer, outcomes.length + 1), undefined);
    assert.equal(decodeAggregate3('0x', 0), undefined);
    assert.equal(decodeAggregate3(`${answer}00`, outcomes.length), undefined);
    assert.equal(decodeAggregate3(42, 0), undefined);
  });

  test('Given a truncated answer or an offset beyond it, When decoded, Then it is not an aggregate3 answer', () => {
    assert.equal(decodeAggregate3(answer.slice(0, answer.length - 64), outcomes.length), undefined);
    const farOffset = `0x${'00'.repeat(31)}ff${answer.slice(66)}`;
    assert.equal(decodeAggregate3(farOffset, outcomes.length), undefined);
  });

  test('Given a success word other than 0 or 1, When decoded, Then it is not an aggregate3 answer', () => {
    const words = answer.slice(2).match(/.{64}/g)!;
    // words: offset, length, 4 element offsets, then the first tuple's success word
    words[6] = `${'0'.repeat(63)}2`;
    assert.equal(decodeAggregate3(`0x${words.join('')}`, outcomes.length), undefined);
  });
});
