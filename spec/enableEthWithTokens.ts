import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { NftProvider, NftsInfos } from './nft.ts';
import { PrivKeyPolicy } from './privKeyPolicy.ts';
import { ProxyFlagFields } from './proxyFlag.ts';
import { REQUEST_DEFAULTS } from './requestDefaults.ts';
import { acceptedNames } from './wireNames.ts';

export { PrivKeyPolicy, PrivKeyPolicyType } from './privKeyPolicy.ts';

/** A field a client may also send as `null`, which means the same as leaving it out (as the reference reads it). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * The swap contract fields of spec 4.1, 4.5, 4.6, 4.7, each optional or `null`: whether one is
 * required, and what it must be, is the family's rule (EVM: `infra/evm/evmAddressRules.ts`).
 */
export const SwapContractFields = {
  swap_contract_address: Type.Optional(Nullable(Type.String())),
  fallback_swap_contract: Type.Optional(Nullable(Type.String())),
};

/** spec 2.2 CoinNode; the proxy flag also under the reference's names (`komodo_proxy`, `gui_auth`). */
export const CoinNode = Type.Object({
  url: Type.String({ minLength: 1 }),
  ws_url: Type.Optional(Type.String()),
  ...ProxyFlagFields,
});

/** spec 2.2 TokensRequest. */
export const TokensRequest = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** spec 2.2 AddressPath: the parts, or a full `derivation_path`. */
export const AddressPath = Type.Object({
  account_id: Type.Optional(Type.Integer({ minimum: 0 })),
  address_id: Type.Optional(Type.Integer({ minimum: 0 })),
  chain: Type.Optional(Type.Union([Type.Literal('External'), Type.Literal('Internal'), Type.Integer({ minimum: 0, maximum: 1 })])),
  derivation_path: Type.Optional(Type.String()),
});

/** `params` of `enable_eth_with_tokens` (spec 4.5) and of `task::enable_eth::init` (spec 4.1). */
export const EnableEthWithTokensParams = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  nodes: Type.Array(CoinNode),
  // Required for EVM swaps (the fallback optional), omitted for TRON: the EVM family checks them.
  ...SwapContractFields,
  erc20_tokens_requests: Type.Array(TokensRequest),
  swap_v2_contracts: Type.Optional(
    Type.Object({
      taker_swap_v2_contract: Type.String(),
      maker_swap_v2_contract: Type.String(),
      nft_maker_swap_v2_contract: Type.String(),
    }),
  ),
  gas_station_url: Type.Optional(Type.String()),
  // No default here: given without gas_station_url only its default (8) is accepted (requestDefaults.ts).
  gas_station_decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36 })),
  gas_station_policy: Type.Optional(
    Type.Object({ policy: Type.Union([Type.Literal('MeanAverageFast'), Type.Literal('Average')], { default: 'MeanAverageFast' }) }),
  ),
  get_balances: Type.Boolean({ default: REQUEST_DEFAULTS.get_balances }),
  mm2: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
  tx_history: Type.Boolean({ default: REQUEST_DEFAULTS.tx_history }),
  // No defaults here: an absent value falls back to the coins entry, then to the spec's default (3, false).
  required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  requires_notarization: Type.Optional(Type.Boolean()),
  rpc_mode: Type.Union(acceptedNames('rpcMode', ['Default', 'BrowserWallet']).map((mode) => Type.Literal(mode)), { default: REQUEST_DEFAULTS.rpc_mode }),
  priv_key_policy: Type.Optional(PrivKeyPolicy),
  // Non-HD EVM platforms only (the family refuses it elsewhere, naming the field).
  nft_req: Type.Optional(NftProvider),
  // HD only (issue: HD wallets); accepted and ignored by an Iguana key.
  gap_limit: Type.Optional(Type.Integer({ minimum: 0 })),
  min_addresses_number: Type.Optional(Type.Integer({ minimum: 0 })),
  path_to_address: Type.Optional(AddressPath),
  scan_policy: Type.Optional(
    Type.Union([Type.Literal('do_not_scan'), Type.Literal('scan_if_new_wallet'), Type.Literal('scan')]),
  ),
});
export type EnableEthWithTokensParams = Static<typeof EnableEthWithTokensParams>;
export const enableEthWithTokensParams = compile(EnableEthWithTokensParams);

/** spec 2.3 BalanceInfo. */
export const BalanceInfo = Type.Object({ spendable: Type.String(), unspendable: Type.String() });

/** spec 2.3 AddressInfo (Iguana). */
export const AddressInfo = Type.Object({
  derivation_method: Type.Object({ type: Type.Union([Type.Literal('Iguana'), Type.Literal('HDWallet')]) }),
  pubkey: Type.String(),
  balances: Type.Optional(Type.Union([BalanceInfo, Type.Record(Type.String(), BalanceInfo)])),
  tickers: Type.Optional(Type.Array(Type.String())),
});

/** `result` of `enable_eth_with_tokens` for an Iguana key (spec 4.5, docs/compatibility.md §7). */
export const EnableEthWithTokensResult = Type.Object({
  current_block: Type.Integer({ minimum: 0 }),
  eth_addresses_infos: Type.Record(Type.String(), AddressInfo),
  erc20_addresses_infos: Type.Record(Type.String(), AddressInfo),
  nfts_infos: NftsInfos,
});
export type EnableEthWithTokensResult = Static<typeof EnableEthWithTokensResult>;
export const enableEthWithTokensResult = compile(EnableEthWithTokensResult);
