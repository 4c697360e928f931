/**
 * NFTs at activation (spec 2.2 NftProvider, 2.3 NFT entry, 4.1, 4.5; docs/compatibility.md §15):
 * the request's `nft_req`, the holdings an activation records, and their wire form in `nfts_infos`.
 * Token ids and amounts are exact decimal strings, never numbers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ProxyFlagFields } from './proxyFlag.ts';
import { acceptedNames } from './wireNames.ts';

/** A token id: a decimal integer without leading zeros (uint256 values exceed 2^53). */
export const TOKEN_ID_PATTERN = '^(0|[1-9][0-9]*)$';
/** An amount: a non-negative decimal, canonical (no leading or trailing zeros). */
export const NFT_AMOUNT_PATTERN = '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$';

/**
 * The NFT chains of the reference, by platform ticker (its `Chain::from_ticker`), and how each is
 * written (its `Display`, also the `chain` of an entry and the indexer's `chain` query).
 */
export const NFT_CHAIN_BY_TICKER = {
  AVAX: 'AVALANCHE',
  BNB: 'BSC',
  ETH: 'ETH',
  FTM: 'FANTOM',
  MATIC: 'POLYGON',
} as const;
export type NftChain = (typeof NFT_CHAIN_BY_TICKER)[keyof typeof NFT_CHAIN_BY_TICKER];

/** The NFT chain of a platform ticker (the reference also accepts the lowercase tickers), or `undefined`. */
export function nftChainOf(ticker: string): NftChain | undefined {
  const upper = ticker === ticker.toLowerCase() ? ticker.toUpperCase() : ticker;
  return Object.hasOwn(NFT_CHAIN_BY_TICKER, upper) ? NFT_CHAIN_BY_TICKER[upper as keyof typeof NFT_CHAIN_BY_TICKER] : undefined;
}

export const NftContractType = Type.Union([Type.Literal('ERC721'), Type.Literal('ERC1155')]);
export type NftContractType = Static<typeof NftContractType>;
const Chain = Type.Union(Object.values(NFT_CHAIN_BY_TICKER).map((c) => Type.Literal(c)));

/**
 * spec 2.2 NftProvider (`nft_req`), `type` `NftIndexer` or the reference's `Moralis`: the indexer's
 * base URL (`http(s)://`, checked when planning so that a refusal names its origin only) and, as
 * the reference's proxy flag (`komodo_proxy` there), whether its requests carry the node's signed
 * gateway-proxy payload.
 */
export const NftProvider = Type.Object({
  type: Type.Union(acceptedNames('nftProvider', ['NftIndexer']).map((name) => Type.Literal(name))),
  info: Type.Object({
    url: Type.String({ minLength: 1 }),
    ...ProxyFlagFields,
  }),
});

/** One NFT the wallet holds, as recorded in `CoinActivated` (`nfts`). */
export const NftHolding = Type.Object({
  /** Lowercase `0x` + 40 hex, as the reference writes it. */
  tokenAddress: Type.String({ pattern: '^0x[0-9a-f]{40}$' }),
  tokenId: Type.String({ pattern: TOKEN_ID_PATTERN }),
  chain: Chain,
  contractType: NftContractType,
  amount: Type.String({ pattern: NFT_AMOUNT_PATTERN }),
});
export type NftHolding = Static<typeof NftHolding>;

/** spec 2.3 NFT entry (a value of `nfts_infos`). */
export const NftEntry = Type.Object({
  token_address: Type.String(),
  token_id: Type.String({ pattern: TOKEN_ID_PATTERN }),
  chain: Chain,
  contract_type: NftContractType,
  amount: Type.String({ pattern: NFT_AMOUNT_PATTERN }),
});
export type NftEntry = Static<typeof NftEntry>;

/** `nfts_infos`: entries keyed `<token_address>,<token_id>`; `{}` without an NFT provider. */
export const NftsInfos = Type.Record(Type.String(), NftEntry);
export type NftsInfos = Static<typeof NftsInfos>;
