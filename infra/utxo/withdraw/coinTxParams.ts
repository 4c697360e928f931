/**
 * What a UTXO coin's transactions look like, from its coins entry, with the reference's defaults
 * (KDF `utxo/utxo_builder/utxo_conf_builder.rs`): address prefixes, bech32 hrp, CashAddr prefix,
 * the signature version (fork id for BCH-style coins), transaction version, dust and fee config.
 */
import type { CoinEntry } from '../../../spec/coins.ts';
import type { Base58Checksum } from '../../keys/base58check.ts';
import { base58ChecksumOf, COIN_PARAMS, UtxoAddressFormat, type UtxoAddressRule } from '../utxoAddress.ts';

/** Fee rate of a coin without `txfee` in its entry: 1000 smallest units per kB (KDF `FeeRate::FixedPerKb(1000)`). */
export const DEFAULT_TXFEE_PER_KB = 1000n;

/** How the coin's fee is found when the request gives none (KDF `UtxoFeeConfig`). */
export type CoinFeeConfig =
  | { readonly kind: 'perKb'; readonly rate: bigint }
  /** `dingo_fee: true`: the rate per started kB. */
  | { readonly kind: 'perStartedKb'; readonly rate: bigint }
  /** `txfee: 0`: the node's estimate (`estimate_fee_blocks`, default 1). */
  | { readonly kind: 'estimate'; readonly blocks: number };

export interface CoinTxParams {
  readonly ticker: string;
  readonly decimals: number;
  /** Base58 version bytes of P2PKH (with the `taddr` byte first when the entry has one). */
  readonly p2pkhPrefix: readonly number[];
  readonly p2shPrefix: readonly number[];
  readonly checksum: Base58Checksum;
  /** The segwit hrp, when the coin has one. */
  readonly hrp?: string;
  /** The CashAddr prefix, when the coin's addresses are CashAddr. */
  readonly cashPrefix?: string;
  /** Sighash flags beside SIGHASH_ALL: `fork_id` (0x40 for BCH); 0 for none. */
  readonly forkId: number;
  /** BIP143-style digests for non-segwit inputs (BCH and other fork-id coins). */
  readonly forkIdSignatures: boolean;
  readonly txVersion: number;
  readonly dust: bigint;
  readonly fee: CoinFeeConfig;
  /** `force_min_relay_fee`: never below the node's relay fee rate. */
  readonly forceMinRelayFee: boolean;
}

/** A field the entry may carry that the schema does not type (the reference reads it leniently). */
function extra(entry: CoinEntry, key: string): unknown {
  return (entry as Record<string, unknown>)[key];
}

/**
 * The coin's transaction parameters, or one sentence naming what this service cannot build for
 * it: Zcash-style (`overwintered`) and proof-of-stake (`isPoS`, a time field) transactions.
 */
export function coinTxParams(entry: CoinEntry, rule: UtxoAddressRule, decimals: number): { params: CoinTxParams } | { problem: string } {
  if (COIN_PARAMS.overwintered(entry) === 1) return { problem: `${entry.coin}: withdrawals of overwintered (Zcash-style) transactions are not supported` };
  if (extra(entry, 'isPoS') === 1 || extra(entry, 'isPoS') === true) return { problem: `${entry.coin}: withdrawals of proof-of-stake transactions (with a time field) are not supported` };
  const rawForkId = extra(entry, 'fork_id');
  const forkId = typeof rawForkId === 'string' && /^(0x)?[0-9a-fA-F]{1,8}$/.test(rawForkId) ? Number.parseInt(rawForkId.replace(/^0x/, ''), 16) : entry.coin === 'BCH' ? 0x40 : 0;
  const signatureVersion = extra(entry, 'signature_version');
  const forkIdSignatures = signatureVersion === 'ForkId' || (signatureVersion === undefined && (entry.coin === 'BCH' || forkId !== 0));
  const taddr = entry.taddr ?? 0;
  const withTaddr = (byte: number) => (taddr > 0 ? [taddr, byte] : [byte]);
  const blocks = extra(entry, 'estimate_fee_blocks');
  const fee: CoinFeeConfig =
    entry.txfee === undefined
      ? { kind: 'perKb', rate: DEFAULT_TXFEE_PER_KB }
      : entry.txfee === 0
        ? { kind: 'estimate', blocks: typeof blocks === 'number' && Number.isSafeInteger(blocks) && blocks > 0 ? blocks : 1 }
        : extra(entry, 'dingo_fee') === true
          ? { kind: 'perStartedKb', rate: BigInt(entry.txfee) }
          : { kind: 'perKb', rate: BigInt(entry.txfee) };
  return {
    params: {
      ticker: entry.coin,
      decimals,
      p2pkhPrefix: withTaddr(COIN_PARAMS.pubtype(entry)),
      p2shPrefix: withTaddr(COIN_PARAMS.p2shtype(entry)),
      checksum: base58ChecksumOf(entry.coin),
      ...(entry.bech32_hrp === undefined ? {} : { hrp: entry.bech32_hrp }),
      ...(rule.format === UtxoAddressFormat.CashAddress ? { cashPrefix: rule.network } : cashPrefixOf(entry)),
      forkId,
      forkIdSignatures,
      txVersion: COIN_PARAMS.txversion(entry),
      dust: BigInt(COIN_PARAMS.dust_amount(entry)),
      fee,
      forceMinRelayFee: extra(entry, 'force_min_relay_fee') === true,
    },
  };
}

/** The entry's own CashAddr prefix (a coin activated as `standard` still takes CashAddr destinations). */
function cashPrefixOf(entry: CoinEntry): { cashPrefix?: string } {
  const format = entry.address_format;
  if (format?.format !== UtxoAddressFormat.CashAddress || format.network === undefined) return {};
  return { cashPrefix: format.network.toLowerCase() };
}
