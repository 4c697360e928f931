/**
 * The HD key provider (docs/compatibility.md §6): a BIP39 English mnemonic (empty BIP39 password) is the
 * BIP32 root; a coin's key at an address path is `derivation_path/account'/chain/address_index`.
 * The root and every derived private key live only in closures: no property, `JSON.stringify`,
 * `util.inspect` or `toString` of the provider reveals them.
 */
import { HDNodeWallet, getBytes, hexlify } from 'ethers';
import { hash160 } from './addresses.ts';
import {
  CHAIN_INDEX,
  DEFAULT_ADDRESS_PATH,
  chainIndex,
  checkIndex,
  coinDerivationPath,
  deriveChild,
  privateNode,
  type PrivateNode,
} from './bip32.ts';
import { DerivationMethod, type AddressPath, type HdKeyProvider, type KeyCoin } from '../../actors/ports/keyProvider.ts';
import { mnemonicSeed } from './mnemonic.ts';
import { revealPassphrase, sealProvider, type PassphraseInput } from './secrecy.ts';
import { createProxyIdentity, lazyProxyIdentity } from './proxyIdentity.ts';
import { signDigestWithScalar } from './digestSigner.ts';

type ChainNodes = Readonly<Record<AddressPath['chain'], PrivateNode>>;

/**
 * The wallet's internal key, as the reference derives it from a mnemonic (`mm2_internal_der_path`;
 * the third step is not hardened). Only the gateway-proxy identity is derived from it.
 */
const INTERNAL_KEY_PATH = "m/44'/141'/2147483647/0/0";

/** Hardened derivations kept; beyond this the least recently used account is dropped. */
const MAX_CACHED_ACCOUNTS = 256;


/**
 * Builds the HD provider from a mnemonic (whitespace is normalised). Throws `InvalidMnemonicError`
 * (kind and word count only, never a word) for a wrong word count, an unknown word or a bad checksum.
 */
export function createHdKeyProvider(mnemonic: PassphraseInput): HdKeyProvider {
  const root = HDNodeWallet.fromSeed(mnemonicSeed(revealPassphrase(mnemonic)));
  const walletId = hexlify(hash160(getBytes(root.publicKey))).slice(2);
  const chains = accountCache(root);

  const accountPath = (coin: KeyCoin, accountId: number) =>
    `${coinDerivationPath(coin)}/${checkIndex('account_id', accountId)}'`;

  const provider: HdKeyProvider = {
    derivationMethod: DerivationMethod.HDWallet,
    walletId,
    accountPath,
    addressPath(coin, path) {
      return `${accountPath(coin, path.accountId)}/${chainIndex(path.chain)}/${checkIndex('address_id', path.addressId)}`;
    },
    async publicKey(coin, path = DEFAULT_ADDRESS_PATH) {
      chainIndex(path.chain); // refuses a chain other than External/Internal
      const chain = chains(accountPath(coin, path.accountId))[path.chain];
      const { publicKey } = deriveChild(chain, checkIndex('address_id', path.addressId));
      return { ...publicKey, compressed: publicKey.compressed.slice() };
    },
    async signDigest(coin, path = DEFAULT_ADDRESS_PATH, digest) {
      chainIndex(path.chain);
      const chain = chains(accountPath(coin, path.accountId))[path.chain];
      return signDigestWithScalar(deriveChild(chain, checkIndex('address_id', path.addressId)).key, digest);
    },
    proxyIdentity: lazyProxyIdentity(() => {
      const internalKey = getBytes(root.derivePath(INTERNAL_KEY_PATH).privateKey);
      try {
        return createProxyIdentity(internalKey);
      } finally {
        internalKey.fill(0);
      }
    }),
  };
  return sealProvider('HdKeyProvider', provider, { derivationMethod: DerivationMethod.HDWallet, walletId });
}

/**
 * Account path → its External and Internal chain nodes. The hardened steps (ethers, several point
 * multiplications each) run once per account; an address then costs one non-hardened step, so a
 * gap-limit scan of hundreds of addresses stays cheap.
 */
function accountCache(root: HDNodeWallet): (accountPath: string) => ChainNodes {
  const cache = new Map<string, ChainNodes>();
  return (accountPath) => {
    let chains = cache.get(accountPath);
    if (chains !== undefined) {
      cache.delete(accountPath); // re-inserted below: most recently used last
    } else {
      const account = root.derivePath(accountPath);
      const node = privateNode(account.privateKey, getBytes(account.chainCode));
      chains = { External: deriveChild(node, CHAIN_INDEX.External), Internal: deriveChild(node, CHAIN_INDEX.Internal) };
      if (cache.size >= MAX_CACHED_ACCOUNTS) cache.delete(cache.keys().next().value as string);
    }
    cache.set(accountPath, chains);
    return chains;
  };
}
