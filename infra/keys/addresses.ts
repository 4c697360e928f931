/**
 * Addresses from a public key (docs/compatibility.md §6): EVM (EIP-55), TRON (base58check 0x41 ‖ the
 * same 20 bytes) and UTXO P2PKH (base58check `pubtype` ‖ hash160(compressed key)).
 */
import { computeAddress, getBytes, ripemd160, sha256 } from 'ethers';
import { encodeBase58Check } from './base58check.ts';
import { evmToTronBase58 } from './tronAddress.ts';
import type { PublicKey } from '../../actors/ports/keyProvider.ts';

/** EIP-55 checksummed EVM address (`0x…`). */
export function evmAddress(publicKey: Pick<PublicKey, 'uncompressedHex'>): string {
  return computeAddress(`0x${publicKey.uncompressedHex}`);
}

/** TRON base58 address (`T…`). */
export function tronAddress(publicKey: PublicKey): string {
  return evmToTronBase58(evmAddress(publicKey));
}

/** hash160 = ripemd160(sha256(data)). */
export function hash160(data: Uint8Array): Uint8Array {
  return getBytes(ripemd160(sha256(data)));
}

/** Legacy P2PKH address of the compressed key with a one-byte `pubtype` (coins-file field). */
export function p2pkhAddress(publicKey: PublicKey, pubtype: number): string {
  if (!Number.isInteger(pubtype) || pubtype < 0 || pubtype > 255) throw new RangeError('pubtype must be 0..255');
  const payload = new Uint8Array(21);
  payload[0] = pubtype;
  payload.set(hash160(publicKey.compressed), 1);
  return encodeBase58Check(payload);
}
