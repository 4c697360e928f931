import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describePasswordViolations,
  isStrongPassword,
  PASSWORD_RULE_TEXT,
  PasswordRule,
  passwordViolations,
} from './passwordPolicy.ts';

describe('passwordViolations', () => {
  it('accepts a password meeting every rule', () => {
    assert.deepEqual(passwordViolations('Str0ng!Pass'), []);
    assert.equal(isStrongPassword('aB3$aB3$'), true);
  });

  it('reports each missing ingredient', () => {
    assert.deepEqual(passwordViolations('Ab1!'), [PasswordRule.MinLength]);
    assert.deepEqual(passwordViolations('Abcdefg!'), [PasswordRule.Digit]);
    assert.deepEqual(passwordViolations('ABCDEF1!'), [PasswordRule.Lowercase]);
    assert.deepEqual(passwordViolations('abcdef1!'), [PasswordRule.Uppercase]);
    assert.deepEqual(passwordViolations('Abcdefg1'), [PasswordRule.Special]);
  });

  it('reports every violated rule at once, in a fixed order', () => {
    assert.deepEqual(passwordViolations('aaa'), [
      PasswordRule.MinLength,
      PasswordRule.Digit,
      PasswordRule.Uppercase,
      PasswordRule.Special,
      PasswordRule.NoTripleRepeat,
    ]);
    assert.deepEqual(passwordViolations('').includes(PasswordRule.MinLength), true);
  });

  it('refuses the word "password" in any case', () => {
    assert.deepEqual(passwordViolations('My1!password'), [PasswordRule.NoPasswordWord]);
    assert.deepEqual(passwordViolations('x1!PassWord'), [PasswordRule.NoPasswordWord]);
    assert.deepEqual(passwordViolations('Pass1!word'), []);
  });

  it('refuses a character repeated 3 times in a row, but allows 2', () => {
    assert.deepEqual(passwordViolations('Abc111!x'), [PasswordRule.NoTripleRepeat]);
    assert.deepEqual(passwordViolations('Ab!!!c1x'), [PasswordRule.NoTripleRepeat]);
    assert.deepEqual(passwordViolations('Abc11!1x'), []);
  });

  it('counts characters, not UTF-16 units; non-ASCII counts as special', () => {
    assert.deepEqual(passwordViolations('Aa1😀😀'), [PasswordRule.MinLength]); // 5 code points, 7 units
    assert.deepEqual(passwordViolations('Abcdef1é'), []);
    assert.deepEqual(passwordViolations('Ab1😀😀😀xy'), [PasswordRule.NoTripleRepeat]);
  });
});

describe('describePasswordViolations', () => {
  it('joins the rule texts and never quotes the password', () => {
    const secret = 'zq';
    const text = describePasswordViolations(passwordViolations(secret));
    assert.match(text, /^must be at least 8 characters, must contain a digit/);
    assert.ok(!text.includes(secret));
    for (const rule of Object.values(PasswordRule)) assert.ok(PASSWORD_RULE_TEXT[rule].length > 0);
  });
});
