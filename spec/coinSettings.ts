/**
 * The settings a coin keeps from its activation (issue 13, spec 4.1, 4.5, 4.6, 4.7): decided once
 * by the activation's plan, recorded in `CoinActivated` (the platform's and each token's), held in
 * the coin's KV value and answered by `coin_status`. Two of them change while the coin is enabled
 * (`set_required_confirmations`, `set_requires_notarization`), each change an event of its own.
 *
 * No secret and no full URL: a gas station is kept by its origin only (its path or query may hold
 * an API key).
 */
import { Type, type Static } from '@sinclair/typebox';

/** The three swap v2 contracts of an EVM coin (spec 2.2 SwapV2Contracts), as the request gave them. */
export const SwapV2ContractsSetting = Type.Object({
  takerSwapV2Contract: Type.String(),
  makerSwapV2Contract: Type.String(),
  nftMakerSwapV2Contract: Type.String(),
});
export type SwapV2ContractsSetting = Static<typeof SwapV2ContractsSetting>;

/** How a gas station's price is read: its origin (never the full URL), decimals and policy. */
export const GasStationSetting = Type.Object({
  origin: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  policy: Type.Union([Type.Literal('MeanAverageFast'), Type.Literal('Average')]),
});
export type GasStationSetting = Static<typeof GasStationSetting>;

/** How many of its electrum servers a coin keeps connected (legacy `electrum`, spec 4.6). */
export const ElectrumConnectionsSetting = Type.Object({
  minConnected: Type.Integer({ minimum: 1 }),
  maxConnected: Type.Integer({ minimum: 1 }),
});
export type ElectrumConnectionsSetting = Static<typeof ElectrumConnectionsSetting>;
/** The NFT indexer of `nft_req` (spec 2.2 NftProvider): its origin only (never the full URL) and its proxy flag. */
export const NftIndexerSetting = Type.Object({
  origin: Type.String(),
  gatewayProxy: Type.Boolean(),
});
export type NftIndexerSetting = Static<typeof NftIndexerSetting>;

/** One coin's settings (a platform, a coin on its own, or a token). */
export const CoinSettings = Type.Object({
  /** Confirmations to wait during swap steps: request, else the coins entry, else 3 (a token: its own request, its entry, its platform's). */
  requiredConfirmations: Type.Integer({ minimum: 0 }),
  /** As the request gave it (default: the coins entry, else false); a token has its platform's. */
  requiresNotarization: Type.Boolean(),
  /** The request's `mm2`, else the coins entry's; `null` when neither has one (v2 only: legacy refuses that). */
  mm2: Type.Union([Type.Literal(0), Type.Literal(1), Type.Null()]),
  /** The coins entry's `wallet_only` (false when absent). */
  walletOnly: Type.Boolean(),
  /** Swap contracts as validated; `null` when absent (a token has its platform's). */
  swapContractAddress: Type.Union([Type.String(), Type.Null()]),
  fallbackSwapContract: Type.Union([Type.String(), Type.Null()]),
  swapV2Contracts: Type.Union([SwapV2ContractsSetting, Type.Null()]),
  /** The gas station the price is read from; `null` without one (a token has its platform's). */
  gasStation: Type.Union([GasStationSetting, Type.Null()]),
  /** As the request gave it; no history is served yet (docs/rpc.md). A token has its platform's. */
  txHistory: Type.Boolean(),
  /**
   * Legacy `electrum` coins: `min_connected` (default 1) and `max_connected` (default: every server
   * given). Absent for other methods, and in logs written before it was kept.
   */
  electrumConnections: Type.Optional(ElectrumConnectionsSetting),
  /** A platform activated with `nft_req`: the indexer it listed NFTs from; absent otherwise (and on tokens). */
  nftIndexer: Type.Optional(NftIndexerSetting),
});
export type CoinSettings = Static<typeof CoinSettings>;

/** A setting that can change after activation, and its new value. */
export type SettingChange =
  | { readonly setting: 'requiredConfirmations'; readonly value: number }
  | { readonly setting: 'requiresNotarization'; readonly value: boolean };
