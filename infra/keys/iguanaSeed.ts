/**
 * Iguana private-key derivation from the passphrase (docs/compatibility.md §6). Internal to
 * `infra/keys`: only key providers may call it; nothing outside should hold a private key.
 */
import { createHash } from 'node:crypto';
import { decodeBase58Bytes, decodeBase58CheckAny } from './base58check.ts';
import { SECP256K1_ORDER, bytesToBigInt } from './curve.ts';

/** How the passphrase was read. */
export const IguanaKeySource = { Wif: 'Wif', Hex: 'Hex', Sha256: 'Sha256' } as const;
export type IguanaKeySource = (typeof IguanaKeySource)[keyof typeof IguanaKeySource];

/**
 * Thrown when the passphrase is a key the service cannot use: a WIF or hex key outside 1..n-1, a
 * WIF-shaped text whose checksum matches none of the three, or an uncompressed WIF. The message
 * quotes nothing of the passphrase.
 */
export class InvalidPrivateKeyError extends Error {
  constructor(message: string) {
    super(`passphrase: ${message}`);
    this.name = 'InvalidPrivateKeyError';
  }
}

const outOfRange = (source: IguanaKeySource) =>
  new InvalidPrivateKeyError(`the ${source === 'Wif' ? 'WIF' : '0x-hex'} key is not a valid secp256k1 private key (zero or not below the curve order)`);

/**
 * Whether `text` has a WIF key's layout whatever its checksum: 37 bytes (uncompressed) or 38 bytes
 * with the compression flag 0x01. The reference refuses such a text when no checksum matches instead
 * of hashing it, so a mistyped WIF never opens another wallet (docs/compatibility.md §6).
 */
function hasWifLayout(text: string): boolean {
  const bytes = decodeBase58Bytes(text);
  return bytes !== undefined && (bytes.length === 37 || (bytes.length === 38 && bytes[33] === 0x01));
}

/**
 * A WIF key: Base58Check of version byte ‖ 32-byte key [‖ 0x01 compression flag]; any version byte
 * and, as in the reference, any of the three checksums (double SHA-256, Groestlcoin's double
 * Grøstl-512, SmartCash's Keccak-256). Returns the 32 key bytes, or `undefined` when `text` does not
 * have a WIF key's layout; throws `InvalidPrivateKeyError` for a bad checksum or an uncompressed key.
 */
export function parseWif(text: string): Uint8Array | undefined {
  if (!hasWifLayout(text)) return undefined;
  const payload = decodeBase58CheckAny(text)?.payload;
  if (payload === undefined) throw new InvalidPrivateKeyError('it has the layout of a WIF key, but its checksum matches none of double SHA-256, double Grøstl-512 and Keccak-256');
  if (payload.length === 33) throw new InvalidPrivateKeyError('an uncompressed WIF key cannot be used: give the compressed WIF of the same key');
  return payload.slice(1, 33);
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
    if (!inRange(wif)) throw outOfRange(IguanaKeySource.Wif);
    return { key: wif, source: IguanaKeySource.Wif };
  }
  if (/^0x[0-9a-fA-F]{64}$/.test(passphrase)) {
    const key = new Uint8Array(Buffer.from(passphrase.slice(2), 'hex'));
    if (!inRange(key)) throw outOfRange(IguanaKeySource.Hex);
    return { key, source: IguanaKeySource.Hex };
  }
  const key = new Uint8Array(createHash('sha256').update(passphrase, 'utf8').digest());
  key[0] = (key[0] as number) & 248;
  key[31] = ((key[31] as number) & 127) | 64;
  return { key, source: IguanaKeySource.Sha256 };
}
