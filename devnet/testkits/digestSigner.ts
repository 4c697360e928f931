/** A software key for withdrawal tests that signs digests the way a key provider will (r‖s, low s), and counts its signatures. */
import { randomBytes } from 'node:crypto';
import { SigningKey, getBytes } from 'ethers';

export interface CountingSigner {
  readonly publicKey: Uint8Array;
  /** Signatures made so far: 0 proves a refusal signed nothing. */
  readonly signed: number;
  signDigest(digest: Uint8Array): Promise<Uint8Array>;
}

export function countingSigner(privateKey: Uint8Array = randomBytes(32)): CountingSigner {
  const key = new SigningKey(privateKey);
  let signed = 0;
  return {
    publicKey: getBytes(key.compressedPublicKey),
    get signed() {
      return signed;
    },
    async signDigest(digest) {
      signed += 1;
      const signature = key.sign(digest);
      return Uint8Array.from([...getBytes(signature.r), ...getBytes(signature.s)]);
    },
  };
}
