import { Type, type Static } from '@sinclair/typebox';
import { BalanceInfo } from './enableEthWithTokens.ts';
import { compile } from './validate.ts';
import { NftsInfos } from './nft.ts';

const BalanceMap = Type.Record(Type.String(), BalanceInfo);

/** spec 2.3 AccountAddressInfo (balance map keyed by ticker, absent when balances were not read). */
export const HdAddressInfo = Type.Object({
  address: Type.String(),
  derivation_path: Type.String(),
  chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]),
  balance: Type.Optional(BalanceMap),
});

/** spec 2.3 WalletAccountInfo. */
export const HdAccountInfo = Type.Object({
  account_index: Type.Integer({ minimum: 0 }),
  derivation_path: Type.String(),
  total_balance: Type.Optional(BalanceMap),
  addresses: Type.Array(HdAddressInfo),
});

/** The HD-shaped activation result (spec 4.2 `Ok` details for HD and hardware keys, docs/compatibility.md §8). */
export const HdActivationResult = Type.Object({
  current_block: Type.Integer({ minimum: 0 }),
  ticker: Type.String(),
  wallet_balance: Type.Object({ wallet_type: Type.Literal('HD'), accounts: Type.Array(HdAccountInfo) }),
  nfts_infos: NftsInfos,
});
export type HdActivationResult = Static<typeof HdActivationResult>;
export const hdActivationResult = compile(HdActivationResult);

/**
 * `Ok` details of `task::enable_utxo::status` and `task::enable_qtum::status`: the reference's
 * `UtxoStandardActivationResult` (mm2src/coins_activation/src/utxo_activation/
 * utxo_standard_activation_result.rs), whose `wallet_balance` is a `CoinBalanceReport` tagged by
 * `wallet_type` (mm2src/coins/coin_balance.rs): `Iguana` with the one address and its balance by
 * ticker, or `HD` with the scanned accounts. Balances are always read (no `get_balances` here).
 */
export const StandaloneActivationResult = Type.Object({
  ticker: Type.String(),
  current_block: Type.Integer({ minimum: 0 }),
  wallet_balance: Type.Union([
    Type.Object({ wallet_type: Type.Literal('Iguana'), address: Type.String(), balance: BalanceMap }),
    Type.Object({ wallet_type: Type.Literal('HD'), accounts: Type.Array(HdAccountInfo) }),
  ]),
});
export type StandaloneActivationResult = Static<typeof StandaloneActivationResult>;
export const standaloneActivationResult = compile(StandaloneActivationResult);
