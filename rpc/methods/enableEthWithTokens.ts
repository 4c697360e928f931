import { formatAmount } from '../../spec/amount.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import {
  enableEthWithTokensParams,
  type EnableEthWithTokensParams,
  type EnableEthWithTokensResult,
} from '../../spec/enableEthWithTokens.ts';
import type { PlatformActivationCommand } from '../../actors/chainFamily.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia, type ActivatedCoin, type Balance } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

/** Wire params → domain command. Key policies this native build cannot honour fail here. */
export function toPlatformCommand(params: EnableEthWithTokensParams, via: PlatformActivationCommand['via']): PlatformActivationCommand {
  if (params.rpc_mode === 'BrowserWallet') {
    throw invalid('params.rpc_mode: BrowserWallet is only available on WebAssembly builds; use Default');
  }
  const policy = typeof params.priv_key_policy === 'string' ? params.priv_key_policy : params.priv_key_policy?.type;
  if (policy === 'BrowserWallet') {
    throw invalid('params.priv_key_policy: BrowserWallet is only available on WebAssembly builds');
  }
  if (policy === 'Hardware' && via === ActivationVia.EnableEthWithTokens) {
    throw new ActivationError(ErrorType.PrivKeyNotAllowed, 'Hardware policy must be activated within task manager (task::enable_eth::init)');
  }
  if (policy === 'RemoteWallet') {
    throw new ActivationError(ErrorType.PrivKeyNotAllowed, 'RemoteWallet policy needs a connected remote-wallet session; none is known');
  }
  return {
    ticker: params.ticker,
    via,
    nodes: params.nodes.map((n) => ({ url: n.url, ...(n.ws_url === undefined ? {} : { wsUrl: n.ws_url }) })),
    tokens: params.erc20_tokens_requests.map((t) => ({ ticker: t.ticker })),
    getBalances: params.get_balances,
    ...(params.swap_contract_address === undefined ? {} : { swapContractAddress: params.swap_contract_address }),
    ...(params.fallback_swap_contract === undefined ? {} : { fallbackSwapContract: params.fallback_swap_contract }),
  };
}

function invalid(message: string): ActivationError {
  return new ActivationError(ErrorType.InvalidRequest, message, message);
}

const balanceInfo = (b: Balance, decimals: number) => ({
  spendable: formatAmount(b.spendable, decimals),
  unspendable: formatAmount(b.unspendable, decimals),
});

/** Domain result → the Iguana result shape of spec 4.5 / notes §7. */
export function renderEnableEthResult(coin: ActivatedCoin, getBalances: boolean): EnableEthWithTokensResult {
  const base = { derivation_method: { type: coin.derivationMethod }, pubkey: coin.pubkey };
  const platform = getBalances && coin.balance ? { ...base, balances: balanceInfo(coin.balance, coin.decimals) } : base;
  const tokens = getBalances
    ? { ...base, balances: Object.fromEntries(coin.tokens.map((t) => [t.ticker, balanceInfo(t.balance ?? zero, t.decimals)])) }
    : { ...base, tickers: coin.tokens.map((t) => t.ticker) };
  return {
    current_block: coin.currentBlock,
    eth_addresses_infos: { [coin.address]: platform },
    erc20_addresses_infos: { [coin.address]: tokens },
    nfts_infos: {},
  };
}
const zero: Balance = { spendable: 0n, unspendable: 0n };

/** `enable_eth_with_tokens` (v2). */
export function enableEthWithTokensMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.V2,
    params: enableEthWithTokensParams,
    async handle(params) {
      const coin = await service.enablePlatformWithTokens(toPlatformCommand(params, ActivationVia.EnableEthWithTokens));
      return renderEnableEthResult(coin, params.get_balances);
    },
  });
}
