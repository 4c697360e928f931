/**
 * Iguana private-key derivation from the passphrase (docs/compatibility.md §6). Internal to
 * `infra/keys`: only key providers may call it; nothing outside should hold a private key.
 */
import { createHash } from 'node:crypto';
import { decodeBase58CheckAny } from './base58check.ts';
import { SECP256K1_ORDER, bytesToBigInt } from './curve.ts';

/** How the passphrase was read. */
export const IguanaKeySource = { Wif: 'Wif', Hex: 'Hex', Sha256: 'Sha256' } as const;
export type IguanaKeySource = (typeof IguanaKeySource)[keyof typeof IguanaKeySource];

/** Thrown when a WIF or hex passphrase encodes a number outside 1..n-1. The message quotes nothing. */
export class InvalidPrivateKeyError extends Error {
  constructor(source: IguanaKeySource) {
    super(`passphrase: the ${source === 'Wif' ? 'WIF' : '0x-hex'} key is not a valid secp256k1 private key (zero or not below the curve order)`);
    this.name = 'InvalidPrivateKeyError';
  }
}

/**
 * A WIF key: Base58Check of version byte ‖ 32-byte key [‖ 0x01 compression flag]; any version byte
 * and, as in the reference, any of the three checksums (double SHA-256, Groestlcoin's double
 * Grøstl-512, SmartCash's Keccak-256). Returns the 32 key bytes, or `undefined` when `text` is not WIF.
 */
export function parseWif(text: string): Uint8Array | undefined {
  const payload = decodeBase58CheckAny(text)?.payload;
  if (payload === undefined) return undefined;
  if (payload.length === 33) return payload.slice(1);
  if (payload.length === 34 && payload[33] === 0x01) return payload.slice(1, 33);
  return undefined;
}

function inRange(key: Uint8Array): boolean {
  const k = bytesToBigInt(key);
  return k > 0n && k < SECP256K1_ORDER;
}

/**
 * The Iguana private key: WIF if the passphrase parses as one, else a `0x`-prefixed 32-byte hex
 * key, else sha256(utf8(passphrase)) clamped (`k[0] &= 248; k[31] &= 127; k[31] |= 64`).
 */
export function iguanaPrivateKey(passphrase: string): { key: Uint8Array; source: IguanaKeySource } {
  const wif = parseWif(passphrase);
  if (wif !== undefined) {
    if (!inRange(wif)) throw new InvalidPrivateKeyError(IguanaKeySource.Wif);
    return { key: wif, source: IguanaKeySource.Wif };
  }
  if (/^0x[0-9a-fA-F]{64}$/.test(passphrase)) {
    const key = new Uint8Array(Buffer.from(passphrase.slice(2), 'hex'));
    if (!inRange(key)) throw new InvalidPrivateKeyError(IguanaKeySource.Hex);
    return { key, source: IguanaKeySource.Hex };
  }
  const key = new Uint8Array(createHash('sha256').update(passphrase, 'utf8').digest());
  key[0] = (key[0] as number) & 248;
  key[31] = ((key[31] as number) & 127) | 64;
  return { key, source: IguanaKeySource.Sha256 };
}
