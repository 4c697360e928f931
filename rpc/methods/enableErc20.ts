import { enableErc20Params, type EnableErc20Params } from '../../spec/enableErc20.ts';
import { invalidRequest } from '../../spec/errors.ts';
import { PolicyType, readPrivKeyPolicy } from '../../spec/privKeyPolicy.ts';
import { readProxyFlag } from '../../spec/proxyFlag.ts';
import { renderEnableErc20Result } from '../../spec/render/enableErc20Result.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import type { TokenActivationCommand } from '../../actors/tokenPlan.ts';
import { ActivationVia, KeyPolicy, summarizeToken } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { admitActivation } from './rawActivationRequest.ts';
import { toSwapContracts } from './enableEthWithTokens.ts';

const FIELD = 'params.activation_params.';

/** Wire params → domain command; the reference's other forms of the method are refused by name. */
export function toTokenCommand(params: EnableErc20Params): TokenActivationCommand {
  const p = params.activation_params;
  if (params.protocol !== undefined && params.protocol !== null) {
    throw invalidRequest('params.protocol: custom tokens are not served; add the token to the coins file and leave protocol out');
  }
  if (p.provider !== undefined) {
    throw invalidRequest(`${FIELD}provider: NFTs are not activated through enable_erc20 here; use nft_req of enable_eth_with_tokens`);
  }
  // Every name clients send (`Trezor`, `gui_auth`, …) is read as the spec's (docs/compatibility.md §17).
  const policy = p.priv_key_policy === undefined ? undefined : readPrivKeyPolicy(p.priv_key_policy, `${FIELD}priv_key_policy`);
  if (policy?.type === PolicyType.BrowserWallet || policy?.type === PolicyType.RemoteWallet) {
    throw invalidRequest(`${FIELD}priv_key_policy: ${policy.spoken} is not served by this native build; a token signs with its platform's key`);
  }
  return {
    ticker: params.ticker,
    ...(p.required_confirmations === undefined ? {} : { requiredConfirmations: p.required_confirmations }),
    ...(p.requires_notarization === undefined ? {} : { requiresNotarization: p.requires_notarization }),
    ...(policy === undefined ? {} : { keyPolicy: policy.type === PolicyType.Hardware ? KeyPolicy.Hardware : KeyPolicy.ContextPrivKey }),
    ...(p.nodes === undefined
      ? {}
      : {
          nodes: p.nodes.map((n, index) => {
            const gatewayProxy = readProxyFlag(n, `${FIELD}nodes[${index}]`);
            return { url: n.url, ...(n.ws_url === undefined ? {} : { wsUrl: n.ws_url }), ...(gatewayProxy === undefined ? {} : { gatewayProxy }) };
          }),
        }),
    ...toSwapContracts(p),
  };
}

/** `enable_erc20` (v2): an ERC20 or TRC20 token added to its active platform (docs/compatibility.md §18). */
export function enableErc20Method(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.V2,
    params: enableErc20Params,
    admit: admitActivation((request) => service.assertCanActivate(request), ActivationVia.EnableErc20),
    async handle(params) {
      const { token, platform } = await service.enableToken(toTokenCommand(params));
      return renderEnableErc20Result(summarizeToken(token), platform);
    },
  });
}
