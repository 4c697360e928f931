/**
 * The checks of `nft_req` (spec 2.2 NftProvider, 4.1, 4.5; docs/compatibility.md §15), in the
 * reference's order, before any network call: the URL (`http(s)://`, refused naming its origin
 * only), a platform the reference lists NFTs for (AVAX, BNB, ETH, FTM, MATIC), a single-address
 * key (the reference lists one address: HD and hardware keys are refused), and an identity to sign
 * with when `gateway_proxy` is set.
 */
import { ErrorType, errorSentence, invalidRequest } from '../../spec/errors.ts';
import { NFT_CHAIN_BY_TICKER, nftChainOf, type NftChain } from '../../spec/nft.ts';
import type { NftIndexerSpec, PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { isHttpUrl } from '../evm/gasStation.ts';
import type { ProxySigner } from '../gatewayProxy/proxySign.ts';

/** A checked `nft_req`: the indexer and the chain to ask it about. */
export interface NftIndexerPlan extends NftIndexerSpec {
  readonly chain: NftChain;
}

/** The plan of `command.nft`, `undefined` without one; throws the first refusal. */
export function planNftIndexer(
  command: PlatformActivationCommand,
  key: { readonly singleAddress: boolean; readonly signer: () => ProxySigner | undefined },
): NftIndexerPlan | undefined {
  const nft = command.nft;
  if (nft === undefined) return undefined;
  if (!isHttpUrl(nft.url)) throw invalidRequest(`params.nft_req.info.url ${urlLabel(nft.url)}: expected an http:// or https:// URL`);
  const chain = nftChainOf(command.ticker);
  if (chain === undefined) {
    const known = Object.keys(NFT_CHAIN_BY_TICKER).join(', ');
    throw invalidRequest(`params.nft_req: ${command.ticker} has no NFT chain; NFTs are listed for the platforms ${known} only, so leave nft_req out`);
  }
  if (!key.singleAddress) {
    const message = 'params.nft_req: NFTs are listed for a single-address (Iguana) key only, not in HD mode or with a hardware key; leave nft_req out';
    throw errorSentence(ErrorType.UnexpectedDerivationMethod, message);
  }
  if (nft.gatewayProxy && key.signer() === undefined) {
    const message =
      'params.nft_req.info.gateway_proxy: requests to a gateway proxy are signed with the node\'s identity key, ' +
      'which is derived from the passphrase in MM2.json, and none is configured';
    throw errorSentence(ErrorType.PrivKeyNotAllowed, message);
  }
  return { url: nft.url, gatewayProxy: nft.gatewayProxy, chain };
}
