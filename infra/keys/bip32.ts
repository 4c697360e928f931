/**
 * BIP32 paths and the non-hardened private child step (docs/compatibility.md §6: address path = coin
 * `derivation_path` + `/account'/chain/address_index`). Internal to `infra/keys`: a node holds a
 * private key and stays inside the HD provider.
 */
import { createHmac } from 'node:crypto';
import { SigningKey, getBytes, toBeHex } from 'ethers';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { SECP256K1_ORDER, bytesToBigInt } from './curve.ts';
import type { AddressPath, KeyCoin, PublicKey } from '../../actors/ports/keyProvider.ts';

/** Largest non-hardened index (2^31 - 1). */
export const MAX_INDEX = 0x7fffffff;

/** Chain index of each chain (BIP44: 0 receiving, 1 change). */
export const CHAIN_INDEX = { External: 0, Internal: 1 } as const;

/** Account 0, External chain, address 0: the path used when none is given. */
export const DEFAULT_ADDRESS_PATH: AddressPath = Object.freeze({ accountId: 0, chain: 'External', addressId: 0 });

/** Same shape as the coins-file schema (spec/coins.ts). */
const BIP32_PATH = /^m(\/[0-9]+'?)+$/;

/** A private BIP32 node: key, chain code and the public key (both forms). */
export interface PrivateNode {
  readonly key: bigint;
  readonly chainCode: Uint8Array;
  readonly publicKey: PublicKey;
}

/** The coin's `derivation_path`, or an `InvalidRequest` naming the coin when HD cannot use it. */
export function coinDerivationPath(coin: KeyCoin): string {
  const path = coin.derivation_path;
  if (path === undefined) {
    throw new ActivationError(ErrorType.InvalidRequest, `coin ${coin.coin} has no derivation_path: HD mode needs derivation_path (e.g. "m/44'/60'") in the coins file`);
  }
  if (!BIP32_PATH.test(path) || path.split('/').slice(1).some((part) => Number.parseInt(part, 10) > MAX_INDEX)) {
    throw new ActivationError(ErrorType.InvalidRequest, `coin ${coin.coin}: derivation_path "${path}" is not a BIP32 path such as "m/44'/60'"`);
  }
  return path;
}

/** Checks an index field of an address path (0..2^31-1); `InvalidRequest` otherwise. */
export function checkIndex(field: 'account_id' | 'address_id', value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_INDEX) {
    throw new ActivationError(ErrorType.InvalidRequest, `${field} must be an integer from 0 to ${MAX_INDEX}`);
  }
  return value;
}

/** The chain index of `chain`; `InvalidRequest` for anything but `External`/`Internal`. */
export function chainIndex(chain: AddressPath['chain']): number {
  const index = (CHAIN_INDEX as Readonly<Record<string, number>>)[chain];
  if (index === undefined) throw new ActivationError(ErrorType.InvalidRequest, 'chain must be "External" or "Internal"');
  return index;
}

/** A node from a private key (32 bytes or hex) and chain code. */
export function privateNode(key: string | Uint8Array, chainCode: Uint8Array): PrivateNode {
  const signingKey = new SigningKey(key);
  return { key: bytesToBigInt(getBytes(signingKey.privateKey)), chainCode, publicKey: publicKeyOf(signingKey.publicKey) };
}

/**
 * CKDpriv for a non-hardened `index`: I = HMAC-SHA512(c, serP(K) ‖ ser32(i)),
 * k_i = IL + k (mod n), c_i = IR. One point multiplication; ethers' HDNodeWallet does three.
 */
export function deriveChild(parent: PrivateNode, index: number): PrivateNode {
  const data = Buffer.alloc(37);
  data.set(parent.publicKey.compressed, 0);
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError('BIP32: not a non-hardened index');
  data.writeUInt32BE(index, 33);
  const digest = createHmac('sha512', parent.chainCode).update(data).digest();
  const tweak = bytesToBigInt(digest.subarray(0, 32));
  const key = (tweak + parent.key) % SECP256K1_ORDER;
  // Probability below 2^-127; BIP32 says to skip such an index, callers never meet one.
  if (tweak >= SECP256K1_ORDER || key === 0n) throw new Error(`BIP32: index ${index} gives an invalid child key`);
  const uncompressed = SigningKey.computePublicKey(toBeHex(key, 32), false);
  return { key, chainCode: new Uint8Array(digest.subarray(32)), publicKey: publicKeyOf(uncompressed) };
}

/** A public BIP32 node (an extended public key without its metadata): what a device gives of an account. */
export interface PublicNode {
  readonly publicKey: PublicKey;
  readonly chainCode: Uint8Array;
}

/**
 * CKDpub for a non-hardened `index`: I = HMAC-SHA512(c, serP(K) ‖ ser32(i)), K_i = point(IL) + K,
 * c_i = IR. Gives the same key as {@link deriveChild} of the private parent, without the private key.
 */
export function derivePublicChild(parent: PublicNode, index: number): PublicNode {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError('BIP32: not a non-hardened index');
  if (parent.chainCode.length !== 32) throw new RangeError('BIP32: a chain code is 32 bytes');
  const data = Buffer.alloc(37);
  data.set(parent.publicKey.compressed, 0);
  data.writeUInt32BE(index, 33);
  const digest = createHmac('sha512', parent.chainCode).update(data).digest();
  const tweak = bytesToBigInt(digest.subarray(0, 32));
  // Probability below 2^-127, as for deriveChild.
  if (tweak === 0n || tweak >= SECP256K1_ORDER) throw new Error(`BIP32: index ${index} gives an invalid child key`);
  const tweakPoint = SigningKey.computePublicKey(toBeHex(tweak, 32), true);
  let child: string;
  try {
    child = SigningKey.addPoints(tweakPoint, parent.publicKey.compressed, false);
  } catch {
    throw new Error(`BIP32: index ${index} gives an invalid child key`); // the point at infinity
  }
  return { publicKey: publicKeyOf(child), chainCode: new Uint8Array(digest.subarray(32)) };
}

/** A public node from a compressed (33-byte) public key and a 32-byte chain code, both hex; the point is checked. */
export function publicNode(compressedHex: string, chainCodeHex: string): PublicNode {
  if (!/^0[23][0-9a-f]{64}$/i.test(compressedHex)) throw new RangeError('BIP32: a public key is 33 bytes, 02 or 03 first');
  if (!/^[0-9a-f]{64}$/i.test(chainCodeHex)) throw new RangeError('BIP32: a chain code is 32 bytes');
  const uncompressed = SigningKey.computePublicKey(`0x${compressedHex}`, false); // throws off the curve
  return { publicKey: publicKeyOf(uncompressed), chainCode: getBytes(`0x${chainCodeHex}`) };
}

/** Both forms of a public key from its `0x04…` uncompressed hex (no point multiplication). */
function publicKeyOf(uncompressed: string): PublicKey {
  const uncompressedHex = uncompressed.slice(2).toLowerCase();
  const yIsOdd = Number.parseInt(uncompressedHex.slice(-1), 16) % 2 === 1;
  const compressedHex = `${yIsOdd ? '03' : '02'}${uncompressedHex.slice(2, 66)}`;
  return { compressed: getBytes(`0x${compressedHex}`), compressedHex, uncompressedHex };
}
