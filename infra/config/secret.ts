/**
 * A secret string (`rpc_password`, `passphrase`) that cannot be printed by accident:
 * `String()`, `JSON.stringify` and `util.inspect` all give `[redacted]`. Read it with `reveal()`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/** Holds one secret string; the value lives in a private field and never appears in output. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  /** The secret itself. Call only where the value is consumed (key derivation, auth compare). */
  reveal(): string {
    return this.#value;
  }

  /** Constant-time comparison with a candidate (both sides hashed first, so lengths do not leak). */
  matches(candidate: string): boolean {
    const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
    return timingSafeEqual(digest(this.#value), digest(candidate));
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `Secret(${REDACTED})`;
  }
}
