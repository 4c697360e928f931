/**
 * `userpass` authentication with a per-caller lockout (docs/compatibility.md §4, improved).
 *
 * The reference bans a client IP forever after 10 wrong passwords and compares with `==`. Here the
 * comparison is constant-time (passwordMatch.ts), and a lockout expires and backs off:
 * `lockoutMs`, doubling per further lockout up to `maxLockoutMs`. A locked-out caller is refused
 * even with the right password. The password is never logged, echoed or put into an error.
 */
import type { Clock } from '../kernel/clock.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { NbAttemptsLeft } from '../spec/envelope.ts';
import type { RpcCaller } from './methods.ts';
import { PasswordMatcher } from './passwordMatch.ts';

export interface AuthGuardOptions {
  /** The configured `rpc_password`; must be a non-empty string (the service refuses to start otherwise). */
  readonly rpcPassword: string;
  readonly clock: Clock;
  /** Wrong passwords allowed before a lockout (reference: 10). */
  readonly maxAttempts?: number;
  /** First lockout length; each further lockout doubles it. Default 30 s. */
  readonly lockoutMs?: number;
  /** Cap of the lockout length. Default 1 h. */
  readonly maxLockoutMs?: number;
  /** A caller with no failure and no lockout for this long is forgotten (backoff resets). Default 1 h. */
  readonly forgetAfterMs?: number;
  /** Most callers tracked at once; the least recently active are evicted first. Default 10 000. */
  readonly maxTrackedClients?: number;
}

/** Outcome of {@link AuthGuard.check}. */
export type AuthResult = { readonly ok: true } | { readonly ok: false; readonly error: ActivationError };

interface CallerRecord {
  /** Wrong passwords since the last success or the last lockout. */
  failures: number;
  /** Lockouts so far (drives the backoff). */
  level: number;
  /** Epoch ms until which the caller is refused; 0 when not locked. */
  lockedUntil: number;
  /** Epoch ms of the last wrong password. */
  lastFailureAt: number;
}

const OK: AuthResult = { ok: true };
const REDACTED = '[REDACTED]';

function positive(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`AuthGuard: ${name} must be a positive number`);
  return v;
}

/** Checks `userpass` for a caller and keeps the per-caller failure and lockout state. */
export class AuthGuard {
  readonly #matcher: PasswordMatcher;
  readonly #password: string;
  readonly #clock: Clock;
  readonly #maxAttempts: number;
  readonly #lockoutMs: number;
  readonly #maxLockoutMs: number;
  readonly #forgetAfterMs: number;
  readonly #maxTracked: number;
  /** Insertion order = least recently active first (records are re-inserted on every update). */
  readonly #records = new Map<string, CallerRecord>();

  /** @throws TypeError when `rpcPassword` is missing or empty. */
  constructor(options: AuthGuardOptions) {
    if (typeof options.rpcPassword !== 'string' || options.rpcPassword === '') {
      throw new TypeError('AuthGuard: rpc_password must be a non-empty string');
    }
    this.#password = options.rpcPassword;
    this.#matcher = new PasswordMatcher(options.rpcPassword);
    this.#clock = options.clock;
    this.#maxAttempts = Math.floor(positive('maxAttempts', options.maxAttempts ?? 10));
    this.#lockoutMs = positive('lockoutMs', options.lockoutMs ?? 30_000);
    this.#maxLockoutMs = Math.max(this.#lockoutMs, positive('maxLockoutMs', options.maxLockoutMs ?? 3_600_000));
    this.#forgetAfterMs = positive('forgetAfterMs', options.forgetAfterMs ?? 3_600_000);
    this.#maxTracked = Math.floor(positive('maxTrackedClients', options.maxTrackedClients ?? 10_000));
  }

  /**
   * Authenticates one request. Order: locked out → `Banned` (whatever the password); not a string
   * → `UserpassIsNotSet` (not counted); wrong → `UserpassIsInvalid` with the attempts left (the
   * last allowed failure answers 0 and starts the lockout); right → ok and the failure count resets.
   */
  check(userpass: unknown, caller: RpcCaller): AuthResult {
    const id = caller.clientId;
    // The clock is read only when it matters: a caller with a record, or a failure. A caller that
    // never failed (every poll of a well-configured client) has no record.
    const tracked = this.#records.get(id);
    const now = tracked === undefined ? 0 : this.#clock.now();
    const record = tracked === undefined ? undefined : this.#current(id, tracked, now);
    if (record !== undefined && record.lockedUntil > now) {
      return { ok: false, error: bannedError(record.lockedUntil - now) };
    }
    if (typeof userpass !== 'string') {
      return { ok: false, error: new ActivationError(ErrorType.UserpassIsNotSet, 'Userpass is not set!') };
    }
    if (this.#matcher.matches(userpass)) {
      if (record !== undefined) this.#onSuccess(id, record);
      return OK;
    }
    return { ok: false, error: this.#onFailure(id, record, tracked === undefined ? this.#clock.now() : now) };
  }

  /** Replaces every occurrence of the configured password (and of `extra` secrets) in `text`. */
  redact(text: string, ...extra: readonly unknown[]): string {
    let out = text.split(this.#password).join(REDACTED);
    for (const s of extra) if (typeof s === 'string' && s.length > 0) out = out.split(s).join(REDACTED);
    return out;
  }

  /** Number of callers currently tracked (bounded by `maxTrackedClients`). */
  get trackedClients(): number {
    return this.#records.size;
  }

  /** The caller's `record`, dropped first if it has gone quiet for `forgetAfterMs`. */
  #current(id: string, record: CallerRecord, now: number): CallerRecord | undefined {
    const quietSince = Math.max(record.lastFailureAt, record.lockedUntil);
    if (record.lockedUntil <= now && now - quietSince >= this.#forgetAfterMs) {
      this.#records.delete(id);
      return undefined;
    }
    return record;
  }

  #onSuccess(id: string, record: CallerRecord): void {
    record.failures = 0;
    record.lockedUntil = 0;
    // The backoff level is kept until the caller goes quiet, so a shared address cannot be used to
    // reset an attacker's backoff by logging in in between.
    if (record.level === 0) this.#records.delete(id);
  }

  #onFailure(id: string, previous: CallerRecord | undefined, now: number): ActivationError {
    const record = previous ?? { failures: 0, level: 0, lockedUntil: 0, lastFailureAt: now };
    record.failures += 1;
    record.lastFailureAt = now;
    const left = Math.max(0, this.#maxAttempts - record.failures);
    if (left === 0) {
      const length = Math.min(this.#lockoutMs * 2 ** record.level, this.#maxLockoutMs);
      record.lockedUntil = now + length;
      record.level += 1;
      record.failures = 0;
    }
    this.#touch(id, record);
    const data: NbAttemptsLeft = { error_type: 'NbAttemptsLeft', error_data: left };
    return new ActivationError(
      ErrorType.UserpassIsInvalid,
      `Userpass is invalid! - Rate Limit attempts left: ${left}`,
      data,
    );
  }

  /** Re-inserts `record` as most recently active and evicts the least recently active beyond the cap. */
  #touch(id: string, record: CallerRecord): void {
    this.#records.delete(id);
    this.#records.set(id, record);
    while (this.#records.size > this.#maxTracked) {
      const oldest = this.#records.keys().next();
      if (oldest.done === true) break;
      this.#records.delete(oldest.value);
    }
  }
}

function bannedError(remainingMs: number): ActivationError {
  const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ActivationError(ErrorType.Banned, `Your ip is banned. Retry in ${seconds} s`, seconds);
}
