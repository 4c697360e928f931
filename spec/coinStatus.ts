/**
 * `coin_status` (v2) and the legacy setters `set_required_confirmations` and
 * `set_requires_notarization` (issue 13; docs/compatibility.md §13): the wire shapes.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';

/** v2 `coin_status` params. */
export const CoinStatusParams = Type.Object({ ticker: Type.String({ minLength: 1 }) });
export type CoinStatusParams = Static<typeof CoinStatusParams>;
export const coinStatusParams = compile(CoinStatusParams);

/** spec 2.2 SwapV2Contracts, as the request gave them. */
const SwapV2ContractsWire = Type.Object({
  taker_swap_v2_contract: Type.String(),
  maker_swap_v2_contract: Type.String(),
  nft_maker_swap_v2_contract: Type.String(),
});

/**
 * The coin's gas station: how its price is read, and (once a price is known) the last price in
 * gwei, when the station answered it and whether refreshes have failed since.
 */
const GasStationWire = Type.Object({
  policy: Type.Union([Type.Literal('MeanAverageFast'), Type.Literal('Average')]),
  decimals: Type.Integer({ minimum: 0 }),
  gas_price_gwei: Type.Optional(Type.String()),
  updated_at: Type.Optional(Type.String()),
  stale: Type.Optional(Type.Boolean()),
});

/** v2 `coin_status` result for an enabled coin (a platform, a coin of its own, or a token). */
export const CoinStatusResult = Type.Object({
  ticker: Type.String(),
  /** A token's is `active`; a platform's may be `passive` (kept for its tokens) or `activating` (re-activating from passive). */
  state: Type.Union([Type.Literal('active'), Type.Literal('passive'), Type.Literal('activating')]),
  /** Tokens only: the platform they were enabled with. */
  platform: Type.Optional(Type.String()),
  address: Type.String(),
  derivation_method: Type.Object({ type: Type.String() }),
  required_confirmations: Type.Integer({ minimum: 0 }),
  requires_notarization: Type.Boolean(),
  mm2: Type.Union([Type.Literal(0), Type.Literal(1), Type.Null()]),
  wallet_only: Type.Boolean(),
  swap_contract_address: Type.Optional(Type.String()),
  fallback_swap_contract: Type.Optional(Type.String()),
  swap_v2_contracts: Type.Optional(SwapV2ContractsWire),
  tx_history: Type.Boolean(),
  gas_station: Type.Optional(GasStationWire),
  /** Legacy `electrum` coins: how many of the given servers it keeps connected (spec 4.6). */
  electrum_connections: Type.Optional(Type.Object({ min_connected: Type.Integer({ minimum: 1 }), max_connected: Type.Integer({ minimum: 1 }) })),
  /** A platform activated with `nft_req`: the NFT indexer by its origin only, and whether its requests are signed. */
  nft_indexer: Type.Optional(Type.Object({ origin: Type.String(), gateway_proxy: Type.Boolean() })),
  /** Platforms only: the enabled tokens' tickers. */
  tokens: Type.Optional(Type.Array(Type.String())),
  activated_at: Type.String(),
});
export type CoinStatusResult = Static<typeof CoinStatusResult>;
export const coinStatusResult = compile(CoinStatusResult);

/** Legacy `set_required_confirmations` request (flat). */
export const SetRequiredConfirmationsParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  confirmations: Type.Integer({ minimum: 0 }),
});
export type SetRequiredConfirmationsParams = Static<typeof SetRequiredConfirmationsParams>;
export const setRequiredConfirmationsParams = compile(SetRequiredConfirmationsParams);
/** Its response: the coin and the confirmations it now requires. */
export const SetRequiredConfirmationsResponse = Type.Object({
  result: Type.Object({ coin: Type.String(), confirmations: Type.Integer({ minimum: 0 }) }),
});
export const setRequiredConfirmationsResponse = compile(SetRequiredConfirmationsResponse);

/** Legacy `set_requires_notarization` request (flat). */
export const SetRequiresNotarizationParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  requires_notarization: Type.Boolean(),
});
export type SetRequiresNotarizationParams = Static<typeof SetRequiresNotarizationParams>;
export const setRequiresNotarizationParams = compile(SetRequiresNotarizationParams);
/** Its response: the coin and the setting it now has. */
export const SetRequiresNotarizationResponse = Type.Object({
  result: Type.Object({ coin: Type.String(), requires_notarization: Type.Boolean() }),
});
export const setRequiresNotarizationResponse = compile(SetRequiresNotarizationResponse);
