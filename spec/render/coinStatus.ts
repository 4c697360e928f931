/** The wire form of `coin_status` (issue 13): a coin's state, address and settings. */
import type { CoinSettings } from '../coinSettings.ts';
import type { CoinStatusResult } from '../coinStatus.ts';

/** A coin's gas price, once its station has answered (exact gwei as a decimal string). */
export interface GasPriceView {
  readonly gasPriceGwei: string;
  readonly updatedAt: string;
  readonly stale: boolean;
}

/** What `coin_status` shows of an enabled coin, in domain form. */
export interface CoinStatusView {
  readonly ticker: string;
  readonly state: CoinStatusResult['state'];
  /** Tokens only. */
  readonly platform?: string;
  readonly address: string;
  readonly derivationMethod: string;
  readonly settings: CoinSettings;
  /** Platforms only: the enabled tokens. */
  readonly tokens?: readonly string[];
  readonly activatedAt: string;
  /** The gas station's last price (of the platform, for a token), when there is one. */
  readonly gasPrice?: GasPriceView;
}

/** `CoinStatusResult` of a coin: absent contracts and station are left out, `mm2` may be `null`. */
export function renderCoinStatus(view: CoinStatusView): CoinStatusResult {
  const s = view.settings;
  const station = s.gasStation;
  const price = view.gasPrice;
  return {
    ticker: view.ticker,
    state: view.state,
    ...(view.platform === undefined ? {} : { platform: view.platform }),
    address: view.address,
    derivation_method: { type: view.derivationMethod },
    required_confirmations: s.requiredConfirmations,
    requires_notarization: s.requiresNotarization,
    mm2: s.mm2,
    wallet_only: s.walletOnly,
    ...(s.swapContractAddress === null ? {} : { swap_contract_address: s.swapContractAddress }),
    ...(s.fallbackSwapContract === null ? {} : { fallback_swap_contract: s.fallbackSwapContract }),
    ...(s.swapV2Contracts === null
      ? {}
      : {
          swap_v2_contracts: {
            taker_swap_v2_contract: s.swapV2Contracts.takerSwapV2Contract,
            maker_swap_v2_contract: s.swapV2Contracts.makerSwapV2Contract,
            nft_maker_swap_v2_contract: s.swapV2Contracts.nftMakerSwapV2Contract,
          },
        }),
    tx_history: s.txHistory,
    ...(station === null
      ? {}
      : {
          gas_station: {
            policy: station.policy,
            decimals: station.decimals,
            ...(price === undefined ? {} : { gas_price_gwei: price.gasPriceGwei, updated_at: price.updatedAt, stale: price.stale }),
          },
        }),
    ...(s.electrumConnections === undefined
      ? {}
      : { electrum_connections: { min_connected: s.electrumConnections.minConnected, max_connected: s.electrumConnections.maxConnected } }),
    ...(s.nftIndexer === undefined ? {} : { nft_indexer: { origin: s.nftIndexer.origin, gateway_proxy: s.nftIndexer.gatewayProxy } }),
    ...(view.tokens === undefined ? {} : { tokens: [...view.tokens] }),
    activated_at: view.activatedAt,
  };
}
