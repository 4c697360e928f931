/**
 * The gateway-proxy identity (docs/compatibility.md §7): an ed25519 key whose 32-byte seed is
 * SHA-256 of the wallet's internal secp256k1 private key, which is how the reference derives the
 * P2P key of a seed node (its other nodes use a random key per run; a stable one ties the identity
 * to the wallet across restarts). The proxy knows the node by the key's libp2p peer id.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { encodeBase58 } from 'ethers';
import type { ProxyIdentity } from '../../actors/ports/keyProvider.ts';
import { sealProvider } from './secrecy.ts';

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
/** libp2p `PublicKey` protobuf: field 1 `KeyType` = 1 (Ed25519), field 2 `Data`, 32 bytes. */
const PROTOBUF_ED25519 = Buffer.from([0x08, 0x01, 0x12, 0x20]);
/** Multihash "identity" code and length: a key this short is its own peer id. */
const IDENTITY_MULTIHASH = Buffer.from([0x00, 0x24]);

/** The identity of `internalPrivateKey` (32 bytes; not kept: only the derived ed25519 key is). */
export function createProxyIdentity(internalPrivateKey: Uint8Array): ProxyIdentity {
  const seed = createHash('sha256').update(internalPrivateKey).digest();
  try {
    return ed25519Identity(seed);
  } finally {
    seed.fill(0);
  }
}

/** The identity whose ed25519 private key is `seed` (32 bytes, as libp2p's `SecretKey`). */
export function ed25519Identity(seed: Uint8Array): ProxyIdentity {
  const der = Buffer.concat([PKCS8_ED25519, seed]);
  const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  der.fill(0);
  const raw = createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32);
  const encoded = Buffer.concat([PROTOBUF_ED25519, raw]);
  const peerId = encodeBase58(Buffer.concat([IDENTITY_MULTIHASH, encoded]));
  const identity: ProxyIdentity = {
    get publicKeyEncoded() {
      return new Uint8Array(encoded);
    },
    peerId,
    sign: (message) => new Uint8Array(sign(null, message, key)),
  };
  return sealProvider('ProxyIdentity', identity, { peerId });
}

/** Memoizes an identity factory: derived on first use, then the same object. */
export function lazyProxyIdentity(derive: () => ProxyIdentity): () => ProxyIdentity {
  let identity: ProxyIdentity | undefined;
  return () => (identity ??= derive());
}
