/** Signing a 32-byte digest with a secp256k1 key held by a provider (the key never leaves it). */
import { SigningKey, toBeHex } from 'ethers';
import type { DigestSignature } from '../../actors/ports/keyProvider.ts';

/** ECDSA over secp256k1 (RFC 6979 nonce, low-S), with the recovery id. */
export function signDigestWith(key: SigningKey, digest: Uint8Array): DigestSignature {
  if (digest.length !== 32) throw new RangeError(`a digest to sign is 32 bytes, got ${digest.length}`);
  const signature = key.sign(digest);
  return { r: signature.r.slice(2), s: signature.s.slice(2), recovery: signature.yParity };
}

/** Signs with a private key given as an integer (a derived HD key): the key object lives for this call only. */
export function signDigestWithScalar(key: bigint, digest: Uint8Array): DigestSignature {
  return signDigestWith(new SigningKey(toBeHex(key, 32)), digest);
}
