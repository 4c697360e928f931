/**
 * Constant-time password comparison without hashing each candidate.
 *
 * Every candidate is written into one reused buffer of a fixed size, the rest zero-filled, and
 * compared with `timingSafeEqual` against the password zero-padded to the same size; the lengths
 * are compared too. What a check costs depends on the candidate (its length) and on that fixed
 * size, never on the password's bytes or length. This replaced SHA-256 of each candidate, the
 * largest cost of our own code in a status poll: under status-poll load, alternating rounds in one
 * process, this compare cost about 1.3 µs less per request than the digest (docs/benchmarks.md).
 */
import crypto from 'node:crypto';

/**
 * Bytes every candidate is compared over. A longer password is compared over its own length (the
 * time of a check then depends on that length, which is fixed by the configuration).
 * @default 256
 */
export const COMPARED_BYTES = 256;

/** Compares candidates with one configured password; one instance per password, checks synchronous. */
export class PasswordMatcher {
  readonly #expected: Buffer;
  readonly #candidate: Buffer;
  readonly #length: number;

  constructor(password: string) {
    this.#length = Buffer.byteLength(password, 'utf8');
    const size = Math.max(COMPARED_BYTES, this.#length);
    this.#expected = Buffer.alloc(size);
    this.#expected.write(password, 0, size, 'utf8');
    this.#candidate = Buffer.alloc(size);
  }

  /** Whether `candidate`'s UTF-8 bytes are exactly the password's. */
  matches(candidate: string): boolean {
    const written = this.#candidate.write(candidate, 0, this.#candidate.length, 'utf8');
    this.#candidate.fill(0, written);
    const sameBytes = crypto.timingSafeEqual(this.#candidate, this.#expected);
    const sameLength = Buffer.byteLength(candidate, 'utf8') === this.#length;
    return sameBytes && sameLength; // both computed before either decides
  }
}
