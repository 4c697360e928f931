/**
 * The double's keys: BIP32 nodes from a BIP39 mnemonic (no passphrase) with ethers, shaped like the
 * firmware's answers (`HDNodeType`, `xpub`, EIP-55 and P2PKH addresses).
 */
import { computeAddress, getBytes, HDNodeWallet, Mnemonic } from 'ethers';
import { decodeBase58Check, encodeBase58Check } from '../../infra/keys/base58check.ts';
import { hash160 } from '../../infra/keys/addresses.ts';

/** The standard Trezor test mnemonic (also used by the firmware's own test suite). */
export const TEST_MNEMONIC = 'all all all all all all all all all all all all';

const HARDENED = 0x80000000;
/** Bitcoin mainnet's extended public key version (`xpub`). */
export const XPUB_MAGIC = 0x0488b21e;

/** P2PKH version byte per `coin_name` the double answers `GetAddress` for. */
const P2PKH_VERSION: Readonly<Record<string, number>> = { Bitcoin: 0x00, Testnet: 0x6f };

/** `HDNodeType` as the device sends it (bytes as hex without `0x`). */
export interface HdNodeFields {
  readonly depth: number;
  readonly fingerprint: number;
  readonly child_num: number;
  readonly chain_code: string;
  readonly public_key: string;
}

/** Key derivation for one seed. */
export interface DeviceKeys {
  /**
   * Node and extended public key at `addressN`, serialized with `xpubMagic` (default Bitcoin
   * mainnet's, what `EthereumPublicKey` carries; `PublicKey` uses the coin's, e.g. `Ltub` for Litecoin).
   */
  publicNode(addressN: readonly number[], xpubMagic?: number): { node: HdNodeFields; xpub: string };
  /** EIP-55 address of the key at `addressN`. */
  ethereumAddress(addressN: readonly number[]): string;
  /** P2PKH address for `coinName` (`Bitcoin`, `Testnet`), or `undefined` for another coin. */
  p2pkhAddress(addressN: readonly number[], coinName: string): string | undefined;
  /** ECDSA signature (low-S, RFC 6979) of a 32-byte digest by the key at `addressN`, with its recovery id. */
  signDigest(addressN: readonly number[], digest: Uint8Array): { r: string; s: string; recovery: 0 | 1 };
}

/** `m/44'/60'/0'/0/0` → `[0x8000002c, 0x8000003c, 0x80000000, 0, 0]`. */
export function parseBip32Path(path: string): number[] {
  const parts = path.split('/');
  if (parts.shift() !== 'm') throw new RangeError(`not a BIP32 path: ${path}`);
  return parts.map((part) => {
    const hardened = part.endsWith("'") || part.endsWith('h');
    const index = Number(hardened ? part.slice(0, -1) : part);
    if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new RangeError(`bad path element: ${part}`);
    return hardened ? index + HARDENED : index;
  });
}

/** Keys of `mnemonic` (BIP39 seed with an empty passphrase, as on a device without passphrase). */
export function createDeviceKeys(mnemonic: string): DeviceKeys {
  const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(mnemonic).computeSeed());
  const cache = new Map<string, HDNodeWallet>();
  const derive = (addressN: readonly number[]): HDNodeWallet => {
    const key = addressN.join('/');
    let node = cache.get(key);
    if (node === undefined) {
      node = addressN.reduce((parent, index) => parent.deriveChild(index), root);
      cache.set(key, node);
    }
    return node;
  };
  return {
    publicNode(addressN, xpubMagic = XPUB_MAGIC) {
      const node = derive(addressN);
      const serialized = decodeBase58Check(node.neuter().extendedKey)!;
      new DataView(serialized.buffer, serialized.byteOffset).setUint32(0, xpubMagic);
      return {
        node: {
          depth: node.depth,
          fingerprint: Number.parseInt(node.parentFingerprint.slice(2), 16),
          child_num: node.index,
          chain_code: node.chainCode.slice(2),
          public_key: node.publicKey.slice(2),
        },
        xpub: encodeBase58Check(serialized),
      };
    },
    ethereumAddress: (addressN) => computeAddress(derive(addressN).publicKey),
    signDigest(addressN, digest) {
      const signature = derive(addressN).signingKey.sign(digest);
      return { r: signature.r.slice(2), s: signature.s.slice(2), recovery: signature.yParity };
    },
    p2pkhAddress(addressN, coinName) {
      const version = P2PKH_VERSION[coinName];
      if (version === undefined) return undefined;
      const payload = new Uint8Array(21);
      payload[0] = version;
      payload.set(hash160(getBytes(derive(addressN).publicKey)), 1);
      return encodeBase58Check(payload);
    },
  };
}
