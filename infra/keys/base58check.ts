/** Base58Check (Bitcoin alphabet, 4-byte double-SHA-256 checksum) over bytes, leading zeros kept. */
import { concat, decodeBase58, encodeBase58, getBytes, sha256, toBeArray } from 'ethers';

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

function checksum(payload: Uint8Array): Uint8Array {
  return getBytes(sha256(sha256(payload))).slice(0, 4);
}

/** Encodes `payload` followed by its checksum. */
export function encodeBase58Check(payload: Uint8Array): string {
  return encodeBase58(concat([payload, checksum(payload)]));
}

/**
 * Decodes a Base58Check string to its payload, or `undefined` when the text is not Base58 or the
 * checksum does not match. Never throws (so a passphrase is never echoed in an error).
 */
export function decodeBase58Check(text: string): Uint8Array | undefined {
  if (!BASE58.test(text)) return undefined;
  const zeros = text.length - text.replace(/^1+/, '').length;
  const value = decodeBase58(text);
  const body = value === 0n ? new Uint8Array(0) : toBeArray(value);
  const bytes = new Uint8Array(zeros + body.length);
  bytes.set(body, zeros);
  if (bytes.length < 5) return undefined;
  const payload = bytes.slice(0, -4);
  const expected = checksum(payload);
  const actual = bytes.slice(-4);
  return expected.every((b, i) => b === actual[i]) ? payload : undefined;
}
