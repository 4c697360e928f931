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
}
