/**
 * A UTXO coin's wallet address and the scripts that pay it, from the coins entry (spec 2.3
 * `address_format`, docs/compatibility.md §6, §9), as the reference builds it: P2PKH with `pubtype`
 * (and a `taddr` byte before it where the entry has one, as Zcash-style coins do) and the ticker's
 * Base58Check checksum, bech32 P2WPKH for `segwit` with `bech32_hrp`, and CashAddr with the prefix
 * in `address_format.network`. Defaults follow the reference (`pubtype` 60, or 0 for BTC).
 */
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import type { CoinEntry } from '../../spec/coins.ts';
import { Base58Checksum, encodeBase58Check } from '../keys/base58check.ts';
import { cashAddressP2pkh, cashAddressPrefix } from './cashAddress.ts';

export const UtxoAddressFormat = { Standard: 'standard', Segwit: 'segwit', CashAddress: 'cashaddress' } as const;
export type UtxoAddressFormat = (typeof UtxoAddressFormat)[keyof typeof UtxoAddressFormat];
const FORMATS: readonly string[] = Object.values(UtxoAddressFormat);

/** How to show and find the wallet on the chain, checked against the coins entry. */
export type UtxoAddressRule =
  | { readonly format: 'standard'; readonly pubtype: number; readonly taddr: number; readonly checksum: Base58Checksum }
  | { readonly format: 'segwit'; readonly hrp: string }
  | { readonly format: 'cashaddress'; readonly network: string };

/** An `address_format` as the coins entry or an activation request gives it. */
export interface AddressFormatRequest {
  readonly format: string;
  readonly network?: string;
}

/**
 * The Base58Check checksum of a coin, chosen by its ticker as the reference does (the coins file has
 * no field for it): double Grøstl-512 for `GRS`, Keccak-256 for `SMART`, double SHA-256 otherwise.
 */
export function base58ChecksumOf(ticker: string): Base58Checksum {
  if (ticker === 'GRS') return Base58Checksum.DoubleGroestl512;
  if (ticker === 'SMART') return Base58Checksum.Keccak256;
  return Base58Checksum.DoubleSha256;
}

const formatName = (format: string) => JSON.stringify(format.slice(0, 40));
const CASH_NEEDS_NETWORK = 'address_format cashaddress needs a network (its CashAddr prefix, e.g. bitcoincash)';

/**
 * The entry's address rule, or one sentence saying what is wrong. `requested` is the activation
 * request's `address_format`: it replaces the entry's, but (as in the reference) cannot switch
 * between segwit and the non-segwit formats.
 */
export function utxoAddressRule(entry: CoinEntry, requested?: AddressFormatRequest): { rule: UtxoAddressRule } | { problem: string } {
  const configured = entry.address_format?.format ?? UtxoAddressFormat.Standard;
  if (!FORMATS.includes(configured)) return { problem: `address_format ${formatName(configured)} in the coins file is not one of ${FORMATS.join(', ')}` };
  if (configured === UtxoAddressFormat.CashAddress && entry.address_format?.network === undefined) return { problem: CASH_NEEDS_NETWORK };
  if (requested !== undefined) {
    if (!FORMATS.includes(requested.format)) return { problem: `address_format ${formatName(requested.format)} is not one of ${FORMATS.join(', ')}` };
    const segwit = (format: string) => format === UtxoAddressFormat.Segwit;
    if (segwit(requested.format) !== segwit(configured)) {
      return { problem: `address_format ${requested.format} cannot replace the coins file's ${configured}: both must be segwit, or both standard/cashaddress` };
    }
  }
  const chosen = requested ?? entry.address_format ?? { format: UtxoAddressFormat.Standard };
  switch (chosen.format) {
    case UtxoAddressFormat.Segwit:
      if (entry.bech32_hrp === undefined) return { problem: 'address_format segwit needs bech32_hrp in the coins file' };
      if (entry.segwit !== true) return { problem: 'address_format segwit needs "segwit": true in the coins file' };
      return { rule: { format: UtxoAddressFormat.Segwit, hrp: entry.bech32_hrp } };
    case UtxoAddressFormat.CashAddress: {
      if (chosen.network === undefined) return { problem: CASH_NEEDS_NETWORK };
      const prefix = cashAddressPrefix(chosen.network);
      if ('problem' in prefix) return prefix;
      return { rule: { format: UtxoAddressFormat.CashAddress, network: prefix.prefix } };
    }
    default:
      return {
        rule: {
          format: UtxoAddressFormat.Standard,
          pubtype: COIN_PARAMS.pubtype(entry),
          taddr: entry.taddr ?? 0,
          checksum: base58ChecksumOf(entry.coin),
        },
      };
  }
}

/**
 * The coin parameters a UTXO entry gives (or the reference's defaults for an entry without them,
 * `utxo_conf_builder.rs`; `dust` is `UTXO_DUST_AMOUNT` in `utxo.rs`), by the name a request uses.
 */
export const COIN_PARAMS = {
  pubtype: (e: CoinEntry): number => e.pubtype ?? (e.coin === 'BTC' ? 0 : 60),
  p2shtype: (e: CoinEntry): number => e.p2shtype ?? (e.coin === 'BTC' ? 5 : 85),
  wiftype: (e: CoinEntry): number => e.wiftype ?? (e.coin === 'BTC' ? 128 : 188),
  txversion: (e: CoinEntry): number => e.txversion ?? 1,
  overwintered: (e: CoinEntry): number => e.overwintered ?? 0,
  txfee: (e: CoinEntry): number => e.txfee ?? 0,
  dust_amount: (e: CoinEntry): number => e.dust ?? 1000,
} as const satisfies Record<string, (e: CoinEntry) => number>;

/** The wallet as the chain sees it: its address and every output script that pays it. */
export interface UtxoWallet {
  readonly address: string;
  /** P2PKH and P2PK (non-segwit) or P2WPKH: the balance is the sum over these. */
  readonly scripts: readonly Uint8Array[];
}

/** The address of a 20-byte key hash (hash160 of the compressed key) under `rule`. */
export function utxoAddressOfHash(hash160: Uint8Array, rule: UtxoAddressRule): string {
  switch (rule.format) {
    case UtxoAddressFormat.Segwit:
      return payments.p2wpkh({ hash: Buffer.from(hash160), network: { bech32: rule.hrp } as never }).address!;
    case UtxoAddressFormat.CashAddress:
      return cashAddressP2pkh(rule.network, hash160);
    case UtxoAddressFormat.Standard: {
      const prefix = rule.taddr > 0 ? [rule.taddr, rule.pubtype] : [rule.pubtype];
      return encodeBase58Check(Uint8Array.from([...prefix, ...hash160]), rule.checksum);
    }
  }
}

/** The wallet of a compressed public key (33 bytes) under `rule`. */
export function utxoWallet(compressedPubkey: Uint8Array, rule: UtxoAddressRule): UtxoWallet {
  const pubkey = Buffer.from(compressedPubkey);
  const hash = btcCrypto.hash160(pubkey);
  const address = utxoAddressOfHash(hash, rule);
  if (rule.format === UtxoAddressFormat.Segwit) return { address, scripts: [payments.p2wpkh({ hash }).output!] };
  return { address, scripts: [payments.p2pkh({ hash }).output!, payments.p2pk({ pubkey }).output!] };
}

/** Electrum's script hash: sha256 of the output script, byte-reversed, hex (docs/compatibility.md §9). */
export function electrumScripthash(script: Uint8Array): string {
  return Buffer.from(btcCrypto.sha256(Buffer.from(script))).reverse().toString('hex');
}
