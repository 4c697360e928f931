import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { groestl512 } from './groestl.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * Known answers of Grøstl-512 published by its authors (the empty message and the "quick brown fox"
 * examples of the Grøstl team, repeated on Wikipedia) and the "abc" / 120-byte vectors of the RIOT OS
 * crypto test suite; the 120-byte message pads to two blocks.
 */
const VECTORS: readonly [string, string][] = [
  ['', '6d3ad29d279110eef3adbd66de2a0345a77baede1557f5d099fce0c03d6dc2ba8e6d4a6633dfbd66053c20faa87d1a11f39a7fbe4a6c2f009801370308fc4ad8'],
  ['The quick brown fox jumps over the lazy dog', 'badc1f70ccd69e0cf3760c3f93884289da84ec13c70b3d12a53a7a8a4a513f99715d46288f55e1dbf926e6d084a0538e4eebfc91cf2b21452921ccde9131718d'],
  ['abc', '70e1c68c60df3b655339d67dc291cc3f1dde4ef343f11b23fdd44957693815a75a8339c682fc28322513fd1f283c18e53cff2b264e06bf83a2f0ac8c1f6fbff6'],
  [
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopqopqrpqrsqrstrstustuvtuvwuvwxvwxywxyzxyzayzabzabcabcdbcdecdefdefg',
    '9f0867f941b5f3f2520e7b60b6e615eca82b61e2c5dd810f562450466f6a80fd72e6391f829dea656c4f84cdd7615e2098a99336d330b7226299e4139d3def75',
  ],
];

describe('Grøstl-512', () => {
  for (const [message, digest] of VECTORS) {
    test(`known answer for a ${message.length}-byte message`, () => {
      assert.equal(hex(groestl512(utf8(message))), digest);
    });
  }

  test('leaves its input unchanged', () => {
    const input = utf8('abc');
    groestl512(input);
    assert.deepEqual(input, utf8('abc'));
  });
});
