/**
 * The Iguana key provider (docs/compatibility.md §6): one secp256k1 key from the passphrase for every
 * coin. The private key lives only in a closure: no property, `JSON.stringify`, `util.inspect` or
 * `toString` of the provider reveals it.
 */
import { SigningKey, getBytes, hexlify } from 'ethers';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { iguanaPrivateKey, type IguanaKeySource } from './iguanaSeed.ts';
import { DerivationMethod, type AddressPath, type KeyCoin, type KeyProvider, type PublicKey } from '../../actors/ports/keyProvider.ts';
import { revealPassphrase, sealProvider, type PassphraseInput } from './secrecy.ts';
import { createProxyIdentity } from './proxyIdentity.ts';
import { signDigestWith } from './digestSigner.ts';

export type { PassphraseInput };

/** An Iguana provider also tells how the passphrase was read (not secret). */
export interface IguanaKeyProvider extends KeyProvider {
  readonly derivationMethod: 'Iguana';
  /** `Wif`, `Hex` or `Sha256`. */
  readonly keySource: IguanaKeySource;
}

/**
 * Builds the Iguana provider. Throws `InvalidPrivateKeyError` (message without the passphrase) when
 * a WIF or hex passphrase is out of range, and a plain `Error` for an empty passphrase.
 */
export function createIguanaKeyProvider(passphrase: PassphraseInput): IguanaKeyProvider {
  const text = revealPassphrase(passphrase);
  if (text === '') throw new Error('passphrase: must be a non-empty string');
  const { key, source } = iguanaPrivateKey(text);
  // `signDigest` closes over `signingKey` below; nothing else ever holds it.
  const signingKey = new SigningKey(key);
  // The Iguana key is also the wallet's internal key: the gateway-proxy identity derives from it.
  const proxyIdentity = createProxyIdentity(key);
  key.fill(0);
  const compressed = getBytes(signingKey.compressedPublicKey);
  const uncompressedHex = signingKey.publicKey.slice(2).toLowerCase();
  const compressedHex = hexlify(compressed).slice(2);

  const provider: IguanaKeyProvider = {
    derivationMethod: DerivationMethod.Iguana,
    keySource: source,
    async publicKey(_coin: KeyCoin, path?: AddressPath): Promise<PublicKey> {
      if (path !== undefined) {
        throw new ActivationError(
          ErrorType.UnexpectedDerivationMethod,
          'an address path was given, but the Iguana key has no derivation paths',
        );
      }
      return { compressed: compressed.slice(), compressedHex, uncompressedHex };
    },
    async signDigest(coin: KeyCoin, path: AddressPath | undefined, digest: Uint8Array) {
      await provider.publicKey(coin, path); // the same refusal of a path
      return signDigestWith(signingKey, digest);
    },
    proxyIdentity: () => proxyIdentity,
  };
  return sealProvider('IguanaKeyProvider', provider, { derivationMethod: DerivationMethod.Iguana, keySource: source });
}
