/**
 * Base58Check (Bitcoin alphabet) over bytes, leading zeros kept, with a 4-byte checksum. Most coins
 * take the checksum from double SHA-256; Groestlcoin from double Grøstl-512 and SmartCash from
 * Keccak-256, as the reference does (docs/compatibility.md §6).
 */
import { concat, decodeBase58, encodeBase58, getBytes, keccak256, sha256, toBeArray } from 'ethers';
import { groestl512 } from './groestl.ts';

/** How the 4 checksum bytes are computed. */
export const Base58Checksum = {
  DoubleSha256: 'DoubleSha256',
  DoubleGroestl512: 'DoubleGroestl512',
  Keccak256: 'Keccak256',
} as const;
export type Base58Checksum = (typeof Base58Checksum)[keyof typeof Base58Checksum];

/** Every checksum, in the order the reference tries them when it reads a WIF key. */
export const BASE58_CHECKSUMS: readonly Base58Checksum[] = Object.values(Base58Checksum);

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

function checksum(payload: Uint8Array, kind: Base58Checksum): Uint8Array {
  switch (kind) {
    case Base58Checksum.DoubleSha256:
      return getBytes(sha256(sha256(payload))).slice(0, 4);
    case Base58Checksum.DoubleGroestl512:
      return groestl512(groestl512(payload)).slice(0, 4);
    case Base58Checksum.Keccak256:
      return getBytes(keccak256(payload)).slice(0, 4);
  }
}

/**
 * Encodes `payload` followed by its checksum.
 * @default kind `DoubleSha256`
 */
export function encodeBase58Check(payload: Uint8Array, kind: Base58Checksum = Base58Checksum.DoubleSha256): string {
  return encodeBase58(concat([payload, checksum(payload, kind)]));
}

/** The bytes of a Base58 string (leading `1`s are zero bytes), or `undefined` when it is not Base58. */
export function decodeBase58Bytes(text: string): Uint8Array | undefined {
  if (!BASE58.test(text)) return undefined;
  const zeros = text.length - text.replace(/^1+/, '').length;
  const value = decodeBase58(text);
  const body = value === 0n ? new Uint8Array(0) : toBeArray(value);
  const bytes = new Uint8Array(zeros + body.length);
  bytes.set(body, zeros);
  return bytes;
}

/**
 * Decodes a Base58Check string whose checksum is any of `kinds`, trying them in order. `undefined`
 * when the text is not Base58 or no checksum matches. Never throws (so a passphrase is never echoed
 * in an error).
 */
export function decodeBase58CheckAny(
  text: string,
  kinds: readonly Base58Checksum[] = BASE58_CHECKSUMS,
): { payload: Uint8Array; checksum: Base58Checksum } | undefined {
  const bytes = decodeBase58Bytes(text);
  if (bytes === undefined || bytes.length < 5) return undefined;
  const payload = bytes.slice(0, -4);
  const actual = bytes.slice(-4);
  const kind = kinds.find((k) => checksum(payload, k).every((b, i) => b === actual[i]));
  return kind === undefined ? undefined : { payload, checksum: kind };
}

/**
 * Decodes a Base58Check string to its payload, or `undefined` when the text is not Base58 or the
 * checksum (`kind`) does not match. Never throws.
 * @default kind `DoubleSha256`
 */
export function decodeBase58Check(text: string, kind: Base58Checksum = Base58Checksum.DoubleSha256): Uint8Array | undefined {
  return decodeBase58CheckAny(text, [kind])?.payload;
}
