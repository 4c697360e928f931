/**
 * The key port (architecture: "KeyProvider"): public keys for a coin and an address path. Iguana
 * (one key from the passphrase), HD mnemonic and hardware-device keys implement it. Secrets never
 * leave an implementation: it hands out public keys now and will hand out signatures later
 * (a `sign…(coin, path, digest)` method), never private keys or seeds.
 */
import type { CoinEntry } from '../../spec/coins.ts';

import { DerivationMethod } from '../../spec/derivationMethod.ts';
export { DerivationMethod };

/** A secp256k1 public key. Each call returns fresh byte arrays; mutating them changes nothing. */
export interface PublicKey {
  /** 33-byte SEC1 compressed form (`02`/`03` ‖ x). */
  readonly compressed: Uint8Array;
  /** 66 lowercase hex characters of {@link PublicKey.compressed}. */
  readonly compressedHex: string;
  /** `"04"` + 128 lowercase hex (x ‖ y): the `pubkey` field of activation results. */
  readonly uncompressedHex: string;
}

/** An HD address path below the coin's `derivation_path`: `/account'/chain/address_index`. */
export interface AddressPath {
  readonly accountId: number;
  readonly chain: 'External' | 'Internal';
  readonly addressId: number;
}

/** The coin fields a provider may use (HD: `derivation_path`; hardware: `trezor_coin`). */
export type KeyCoin = Pick<CoinEntry, 'coin'> & Partial<Pick<CoinEntry, 'derivation_path' | 'trezor_coin'>>;

/**
 * The node's signing identity for gateway-proxy nodes (`gateway_proxy: true`, docs/compatibility.md
 * §7): an ed25519 key the provider derives from the wallet's internal key, as the reference derives
 * a seed node's P2P key. It signs proxy authentication payloads only; the private key stays inside.
 */
export interface ProxyIdentity {
  /** The public key in libp2p's protobuf encoding (`08 01 12 20` ‖ 32 bytes). */
  readonly publicKeyEncoded: Uint8Array;
  /** Its libp2p peer id (base58, `12D3KooW…`): the `address` a proxy knows the node by. */
  readonly peerId: string;
  /** The 64-byte ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
}

/** A secp256k1 signature: `r`, `s` (32 bytes each, hex without `0x`, `s` low) and the recovery id. */
export interface DigestSignature {
  readonly r: string;
  readonly s: string;
  readonly recovery: 0 | 1;
}

/** A source of keys. Implementations keep private keys internal and unprintable. */
export interface KeyProvider {
  /** `Iguana` for a single passphrase key; `HDWallet` for mnemonic and hardware keys. */
  readonly derivationMethod: DerivationMethod;
  /**
   * The public key used for `coin` at `path`. An Iguana provider has one key for every coin and
   * rejects a `path` (`UnexpectedDerivationMethod`); HD providers default to account 0,
   * External chain, address 0.
   */
  publicKey(coin: KeyCoin, path?: AddressPath): Promise<PublicKey>;
  /**
   * The secp256k1 signature (low-S, with recovery id) of a 32-byte `digest` by the key of `coin` at
   * `path` (same rules as {@link publicKey}). The private key never leaves the provider. Absent in
   * providers without private keys (a device's account).
   */
  signDigest?(coin: KeyCoin, path: AddressPath | undefined, digest: Uint8Array): Promise<DigestSignature>;
  /**
   * The node's gateway-proxy identity (the same object on every call). Absent when the service has
   * no wallet key (no passphrase): gateway-proxy nodes are then refused.
   */
  proxyIdentity?(): ProxyIdentity;
}

/** A mnemonic-backed provider, with the paths and the wallet id an address scanner needs. */
export interface HdKeyProvider extends KeyProvider {
  readonly derivationMethod: 'HDWallet';
  /**
   * Stable, non-secret id of the wallet: hex hash160 of the master public key (40 digits). Keys
   * per-wallet state (e.g. stored address counts) without revealing anything.
   */
  readonly walletId: string;
  /** The account's BIP32 path, e.g. `m/44'/60'/0'`. `InvalidRequest` without `derivation_path`. */
  accountPath(coin: KeyCoin, accountId: number): string;
  /** The full BIP32 path of an address, e.g. `m/44'/60'/0'/0/5`. */
  addressPath(coin: KeyCoin, path: AddressPath): string;
  /**
   * The public key at `path` (default account 0, External, address 0). Rejects with
   * `InvalidRequest` when the coin has no `derivation_path` or an index is out of range.
   */
  publicKey(coin: KeyCoin, path?: AddressPath): Promise<PublicKey>;
}

/** Whether `keys` is an {@link HdKeyProvider} (hardware keys are `HDWallet` too, but are not). */
export function isHdKeyProvider(keys: KeyProvider): keys is HdKeyProvider {
  return keys.derivationMethod === DerivationMethod.HDWallet && 'walletId' in keys && 'addressPath' in keys;
}
