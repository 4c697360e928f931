/**
 * A UTXO coin's wallet address and the scripts that pay it, from the coins entry (spec 2.3
 * `address_format`, docs/compatibility.md §6, §9): P2PKH with `pubtype` (and a `taddr` byte before it
 * where the entry has one, as Zcash-style coins do), bech32 P2WPKH for `segwit` with `bech32_hrp`,
 * and CashAddr for Bitcoin Cash entries. Defaults follow the reference (`pubtype` 60, or 0 for BTC).
 */
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import type { CoinEntry } from '../../spec/coins.ts';
import { encodeBase58Check } from '../keys/base58check.ts';
import { cashAddressP2pkh } from './cashAddress.ts';

export const UtxoAddressFormat = { Standard: 'standard', Segwit: 'segwit', CashAddress: 'cashaddress' } as const;
export type UtxoAddressFormat = (typeof UtxoAddressFormat)[keyof typeof UtxoAddressFormat];

const CASH_NETWORKS = ['bitcoincash', 'bchtest', 'bchreg'] as const;

/** How to show and find the wallet on the chain, checked against the coins entry. */
export type UtxoAddressRule =
  | { readonly format: 'standard'; readonly pubtype: number; readonly taddr: number }
  | { readonly format: 'segwit'; readonly hrp: string }
  | { readonly format: 'cashaddress'; readonly network: string };

/** The entry's address rule, or one sentence saying what is wrong with it. */
export function utxoAddressRule(entry: CoinEntry): { rule: UtxoAddressRule } | { problem: string } {
  const format = entry.address_format?.format ?? UtxoAddressFormat.Standard;
  switch (format) {
    case UtxoAddressFormat.Standard:
      return { rule: { format, pubtype: entry.pubtype ?? (entry.coin === 'BTC' ? 0 : 60), taddr: entry.taddr ?? 0 } };
    case UtxoAddressFormat.Segwit:
      if (entry.bech32_hrp === undefined) return { problem: 'address_format segwit needs bech32_hrp in the coins file' };
      return { rule: { format, hrp: entry.bech32_hrp } };
    case UtxoAddressFormat.CashAddress: {
      const network = entry.address_format?.network;
      if (!CASH_NETWORKS.includes(network as (typeof CASH_NETWORKS)[number])) {
        return { problem: `address_format cashaddress needs network ${CASH_NETWORKS.join(', ')}` };
      }
      return { rule: { format, network: network! } };
    }
    default:
      return { problem: `address_format ${JSON.stringify(format).slice(0, 40)} is not one of standard, segwit, cashaddress` };
  }
}

/** The wallet as the chain sees it: its address and every output script that pays it. */
export interface UtxoWallet {
  readonly address: string;
  /** P2PKH and P2PK (non-segwit) or P2WPKH: the balance is the sum over these. */
  readonly scripts: readonly Uint8Array[];
}

/** The wallet of a compressed public key (33 bytes) under `rule`. */
export function utxoWallet(compressedPubkey: Uint8Array, rule: UtxoAddressRule): UtxoWallet {
  const pubkey = Buffer.from(compressedPubkey);
  const hash = btcCrypto.hash160(pubkey);
  if (rule.format === UtxoAddressFormat.Segwit) {
    const p2wpkh = payments.p2wpkh({ hash, network: { bech32: rule.hrp } as never });
    return { address: p2wpkh.address!, scripts: [p2wpkh.output!] };
  }
  const scripts = [payments.p2pkh({ hash }).output!, payments.p2pk({ pubkey }).output!];
  if (rule.format === UtxoAddressFormat.CashAddress) return { address: cashAddressP2pkh(rule.network, hash), scripts };
  const prefix = rule.taddr > 0 ? [rule.taddr, rule.pubtype] : [rule.pubtype];
  return { address: encodeBase58Check(Uint8Array.from([...prefix, ...hash])), scripts };
}

/** Electrum's script hash: sha256 of the output script, byte-reversed, hex (docs/compatibility.md §9). */
export function electrumScripthash(script: Uint8Array): string {
  return Buffer.from(btcCrypto.sha256(Buffer.from(script))).reverse().toString('hex');
}
