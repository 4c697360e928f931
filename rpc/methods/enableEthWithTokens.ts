import { ActivationError, ErrorType } from '../../spec/errors.ts';
import {
  enableEthWithTokensParams,
  type EnableEthWithTokensParams,
} from '../../spec/enableEthWithTokens.ts';
import { CommandKind, type PlatformActivationCommand } from '../../actors/chainFamily.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia, KeyPolicy, summarizeActivation } from '../../machines/activation.types.ts';
import { renderIguanaResult } from './activationResult.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

/** Wire params → domain command. Policies this native build cannot serve are `InvalidRequest`. */
export function toPlatformCommand(params: EnableEthWithTokensParams, via: PlatformActivationCommand['via']): PlatformActivationCommand {
  if (params.rpc_mode === 'BrowserWallet') {
    throw invalid('params.rpc_mode: BrowserWallet is only available on WebAssembly builds; use Default');
  }
  const policy = typeof params.priv_key_policy === 'string' ? params.priv_key_policy : params.priv_key_policy?.type;
  if (policy === 'BrowserWallet') {
    throw invalid('params.priv_key_policy: BrowserWallet is only available on WebAssembly builds');
  }
  return {
    kind: CommandKind.Platform,
    ticker: params.ticker,
    via,
    nodes: params.nodes.map((n) => ({ url: n.url, ...(n.ws_url === undefined ? {} : { wsUrl: n.ws_url }) })),
    tokens: params.erc20_tokens_requests.map((t) => ({ ticker: t.ticker })),
    getBalances: params.get_balances,
    keyPolicy: policy ?? KeyPolicy.ContextPrivKey,
    ...(params.swap_contract_address === undefined ? {} : { swapContractAddress: params.swap_contract_address }),
    ...(params.fallback_swap_contract === undefined ? {} : { fallbackSwapContract: params.fallback_swap_contract }),
    ...(params.nft_req === undefined ? {} : { nftRequested: true }),
  };
}

function invalid(message: string): ActivationError {
  return new ActivationError(ErrorType.InvalidRequest, message, message);
}

/** `enable_eth_with_tokens` (v2). */
export function enableEthWithTokensMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.V2,
    params: enableEthWithTokensParams,
    async handle(params) {
      const command = toPlatformCommand(params, ActivationVia.EnableEthWithTokens);
      if (command.keyPolicy === KeyPolicy.Hardware) {
        const message = 'Hardware policy must be activated within task manager (task::enable_eth::init)';
        throw new ActivationError(ErrorType.PrivKeyNotAllowed, message, message);
      }
      const coin = await service.enablePlatformWithTokens(command);
      return renderIguanaResult(summarizeActivation(coin, 0), params.get_balances);
    },
  });
}
