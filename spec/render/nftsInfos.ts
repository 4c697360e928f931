/** `nfts_infos` of an activation result (spec 2.3 NFT entry, 4.2, 4.5) from the holdings it recorded. */
import type { NftHolding, NftsInfos } from '../nft.ts';

/** The wire map of recorded holdings (absent: no provider was asked, `{}`). */
export function renderNftsInfos(holdings: readonly NftHolding[] | undefined): NftsInfos {
  const infos: NftsInfos = {};
  for (const h of holdings ?? []) {
    infos[`${h.tokenAddress},${h.tokenId}`] = {
      token_address: h.tokenAddress,
      token_id: h.tokenId,
      chain: h.chain,
      contract_type: h.contractType,
      amount: h.amount,
    };
  }
  return infos;
}
