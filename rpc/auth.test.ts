import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import type { ActivationError } from '../spec/errors.ts';
import { AuthGuard, type AuthGuardOptions, type AuthResult } from './auth.ts';
import { COMPARED_BYTES } from './passwordMatch.ts';

const PASSWORD = 'Zq9!ticket-Lamp';

function guard(extra: Partial<AuthGuardOptions> = {}): { g: AuthGuard; clock: ManualClock } {
  const clock = new ManualClock();
  return { g: new AuthGuard({ rpcPassword: PASSWORD, clock, ...extra }), clock };
}

function errorOf(r: AuthResult): ActivationError {
  assert.equal(r.ok, false);
  if (r.ok) throw new Error('unreachable');
  return r.error;
}

const A = { clientId: '10.0.0.1' };
const B = { clientId: '10.0.0.2' };

describe('AuthGuard', () => {
  it('refuses to be built without a non-empty password (the service must not start)', () => {
    const clock = new ManualClock();
    assert.throws(() => new AuthGuard({ rpcPassword: '', clock }), TypeError);
    assert.throws(() => new AuthGuard({ rpcPassword: undefined as unknown as string, clock }), TypeError);
  });

  it('accepts the right password and does not track a caller that never failed', () => {
    const { g } = guard();
    assert.deepEqual(g.check(PASSWORD, A), { ok: true });
    assert.equal(g.trackedClients, 0);
  });

  it('missing or non-string userpass is UserpassIsNotSet (403, no data) and is not counted', () => {
    const { g } = guard();
    for (const v of [undefined, null, 42]) {
      const e = errorOf(g.check(v, A));
      assert.equal(e.errorType, 'UserpassIsNotSet');
      assert.equal(e.httpStatus, 403);
      assert.equal(e.data, undefined);
    }
    assert.deepEqual(errorOf(g.check('wrong', A)).data, { error_type: 'NbAttemptsLeft', error_data: 9 });
  });

  it('counts wrong attempts down to 0, then bans; the right password is refused while banned', () => {
    const { g } = guard();
    for (let left = 9; left >= 0; left--) {
      const e = errorOf(g.check(`wrong-${left}`, A));
      assert.equal(e.errorType, 'UserpassIsInvalid');
      assert.equal(e.httpStatus, 403);
      assert.deepEqual(e.data, { error_type: 'NbAttemptsLeft', error_data: left });
      assert.equal(e.message, `Userpass is invalid! - Rate Limit attempts left: ${left}`);
    }
    const banned = errorOf(g.check(PASSWORD, A));
    assert.equal(banned.errorType, 'Banned');
    assert.equal(banned.httpStatus, 403);
    assert.equal(banned.data, 30);
    assert.equal(errorOf(g.check(undefined, A)).errorType, 'Banned', 'banned even without a userpass');
  });

  it('counts per caller', () => {
    const { g } = guard({ maxAttempts: 2 });
    errorOf(g.check('x', A));
    errorOf(g.check('x', A));
    assert.equal(errorOf(g.check(PASSWORD, A)).errorType, 'Banned');
    assert.deepEqual(g.check(PASSWORD, B), { ok: true });
  });

  it('the lockout expires; a right password then resets the count', () => {
    const { g, clock } = guard({ maxAttempts: 3 });
    for (let i = 0; i < 3; i++) errorOf(g.check('x', A));
    clock.advance(10_000);
    assert.equal(errorOf(g.check(PASSWORD, A)).data, 20, 'seconds until retry count down');
    clock.advance(19_999);
    assert.equal(errorOf(g.check(PASSWORD, A)).data, 1);
    clock.advance(1);
    assert.deepEqual(g.check(PASSWORD, A), { ok: true });
    assert.deepEqual(errorOf(g.check('x', A)).data, { error_type: 'NbAttemptsLeft', error_data: 2 });
  });

  it('gives a fresh batch of attempts after expiry and doubles each further lockout up to the cap', () => {
    const { g, clock } = guard({ maxAttempts: 2, lockoutMs: 1_000, maxLockoutMs: 5_000 });
    const lockoutLengths: number[] = [];
    for (let round = 0; round < 5; round++) {
      errorOf(g.check('x', A));
      errorOf(g.check('x', A));
      lockoutLengths.push(errorOf(g.check('x', A)).data as number);
      clock.advance((lockoutLengths.at(-1) as number) * 1000);
    }
    assert.deepEqual(lockoutLengths, [1, 2, 4, 5, 5]);
  });

  it('keeps the backoff level across a success but forgets a caller that stays quiet', () => {
    const { g, clock } = guard({ maxAttempts: 1, lockoutMs: 1_000, forgetAfterMs: 60_000 });
    errorOf(g.check('x', A));
    clock.advance(1_000);
    assert.deepEqual(g.check(PASSWORD, A), { ok: true });
    errorOf(g.check('x', A));
    assert.equal(errorOf(g.check('x', A)).data, 2, 'second lockout doubled despite the success in between');
    clock.advance(2_000 + 60_000);
    errorOf(g.check('x', A));
    assert.equal(errorOf(g.check('x', A)).data, 1, 'quiet caller forgotten: back to the base lockout');
  });

  it('bounds memory: the least recently active callers are evicted', () => {
    const { g } = guard({ maxTrackedClients: 3 });
    for (let i = 0; i < 10; i++) errorOf(g.check('x', { clientId: `c${i}` }));
    assert.equal(g.trackedClients, 3);
    assert.deepEqual(errorOf(g.check('x', { clientId: 'c0' })).data, { error_type: 'NbAttemptsLeft', error_data: 9 });
    assert.deepEqual(errorOf(g.check('x', { clientId: 'c9' })).data, { error_type: 'NbAttemptsLeft', error_data: 8 });
  });

  it('compares buffers of one fixed size with crypto.timingSafeEqual, whatever the length of the guess', (t) => {
    const spy = mock.method(crypto, 'timingSafeEqual');
    t.after(() => spy.mock.restore());
    const { g } = guard();
    g.check('a', A);
    g.check('x'.repeat(10_000), A);
    g.check(PASSWORD, A);
    assert.equal(spy.mock.callCount(), 3);
    for (const call of spy.mock.calls) {
      const [a, b] = call.arguments as unknown as [Buffer, Buffer];
      assert.equal(a.length, COMPARED_BYTES);
      assert.equal(b.length, COMPARED_BYTES);
    }
  });

  it('compares the guess as UTF-8: a non-ASCII password is accepted, its near misses refused, in any order', () => {
    const password = 'pässwörd-✓-😀';
    const clock = new ManualClock();
    const g = new AuthGuard({ rpcPassword: password, clock, maxAttempts: 100 });
    // Near misses: the same characters as Latin-1 bytes, one code unit off, a lone surrogate, a prefix.
    const misses = [Buffer.from(password, 'utf8').toString('latin1'), 'pässwörd-✓-😁', 'pässwörd-✓-\ud83d', password.slice(0, -2), `${password}\0`];
    for (const miss of misses) {
      assert.equal(g.check(password, A).ok, true);
      assert.equal(errorOf(g.check(miss, A)).errorType, 'UserpassIsInvalid', JSON.stringify(miss));
    }
    assert.equal(g.check(password, B).ok, true);
  });

  it('never puts the password or the guess into an error', () => {
    const { g } = guard({ maxAttempts: 2 });
    const texts: string[] = [];
    for (const guess of [undefined, 'guess-one', PASSWORD.slice(0, -1), PASSWORD, PASSWORD]) {
      const r = g.check(guess, A);
      if (!r.ok) texts.push(r.error.message, JSON.stringify(r.error.data ?? null), JSON.stringify(r.error));
    }
    const all = texts.join('\n');
    assert.ok(!all.includes(PASSWORD));
    assert.ok(!all.includes(PASSWORD.slice(0, -1)));
    assert.ok(!all.includes('guess-one'));
  });

  it('redact removes the password and extra secrets', () => {
    const { g } = guard();
    assert.equal(g.redact(`a ${PASSWORD} b ${PASSWORD}`), 'a [REDACTED] b [REDACTED]');
    assert.equal(g.redact('pin 1234 here', '1234', '', 7), 'pin [REDACTED] here');
  });

  it('rejects nonsensical limits', () => {
    const clock = new ManualClock();
    assert.throws(() => new AuthGuard({ rpcPassword: PASSWORD, clock, maxAttempts: 0 }), RangeError);
    assert.throws(() => new AuthGuard({ rpcPassword: PASSWORD, clock, lockoutMs: -1 }), RangeError);
  });
});
