import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPARED_BYTES, PasswordMatcher } from './passwordMatch.ts';
import { mulberry32 } from '../devnet/testing/seededRandom.ts';

/** The definition: the same UTF-8 bytes. */
const sameUtf8 = (a: string, b: string) => Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'));

test('a candidate matches exactly when its UTF-8 bytes are the password’s', () => {
  const password = 'Str0ng-pässwörd-€-🔑';
  const m = new PasswordMatcher(password);
  assert.equal(m.matches(password), true);
  assert.equal(m.matches(`${password}`.normalize('NFD')), sameUtf8(password, password.normalize('NFD')));
  for (const near of [
    password.slice(0, -1),
    `${password}x`,
    `${password}\u0000`,
    `\u0000${password}`,
    password.replace('ä', 'a'),
    password.toUpperCase(),
    '',
    `${password}${'x'.repeat(COMPARED_BYTES)}`,
  ]) {
    assert.equal(m.matches(near), false, JSON.stringify(near));
  }
  assert.equal(m.matches(password), true, 'still matches after other candidates used the buffer');
});

test('a password longer than the compared size is compared over its whole length', () => {
  const password = `${'p'.repeat(COMPARED_BYTES + 10)}-end`;
  const m = new PasswordMatcher(password);
  assert.equal(m.matches(password), true);
  assert.equal(m.matches(`${password.slice(0, -1)}E`), false, 'differs in the last byte');
  assert.equal(m.matches(password.slice(0, COMPARED_BYTES)), false, 'its first bytes alone');
  assert.equal(m.matches(`${password}!`), false);
});

test('random candidates: matches agrees with comparing UTF-8 bytes', () => {
  const random = mulberry32(7);
  const alphabet = ['a', 'b', 'Z', '0', '\u0000', 'ä', '€', '🔑', '\ud800', '\udfff', ' '];
  const word = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  for (let i = 0; i < 300; i++) {
    const password = word(1 + Math.floor(random() * 12));
    const m = new PasswordMatcher(password);
    for (let j = 0; j < 20; j++) {
      const candidate = random() < 0.3 ? password : random() < 0.5 ? word(password.length) : word(Math.floor(random() * 14));
      assert.equal(m.matches(candidate), sameUtf8(candidate, password), `${JSON.stringify(password)} vs ${JSON.stringify(candidate)}`);
    }
  }
});
