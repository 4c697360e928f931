import { ErrorType, errorSentence, invalidRequest } from '../../spec/errors.ts';
import {
  enableEthWithTokensParams,
  type AddressPath,
  type EnableEthWithTokensParams,
} from '../../spec/enableEthWithTokens.ts';
import { CommandKind, type GasStationSpec, type PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import type { AddressPathRequest, HdRequest } from '../../actors/hdPlan.ts';
import type { Static } from '@sinclair/typebox';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia, KeyPolicy, type SwapV2Contracts } from '../../machines/activation.types.ts';
import { PolicyType, readPrivKeyPolicy } from '../../spec/privKeyPolicy.ts';
import { readProxyFlag } from '../../spec/proxyFlag.ts';
import { REQUEST_DEFAULTS, withoutEffectMessage } from '../../spec/requestDefaults.ts';
import { describeName, neutralName } from '../../spec/wireNames.ts';
import { renderActivationResult } from '../../spec/render/activationResult.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { admitActivation } from './rawActivationRequest.ts';

/**
 * Wire params → domain command, the reference's names read as the spec's (spec/wireNames.ts).
 * Policies this native build cannot serve are `InvalidRequest`.
 */
export function toPlatformCommand(params: EnableEthWithTokensParams, via: PlatformActivationCommand['via']): PlatformActivationCommand {
  if (neutralName('rpcMode', params.rpc_mode) === 'BrowserWallet') {
    throw invalidRequest(`params.rpc_mode: ${describeName('rpcMode', params.rpc_mode)} is only available on WebAssembly builds; use Default`);
  }
  const policy = readPrivKeyPolicy(params.priv_key_policy, 'params.priv_key_policy');
  if (policy.type === PolicyType.BrowserWallet) {
    throw invalidRequest(`params.priv_key_policy: ${policy.spoken} is only available on WebAssembly builds`);
  }
  return {
    kind: CommandKind.Platform,
    ticker: params.ticker,
    via,
    nodes: params.nodes.map((n, index) => {
      const gatewayProxy = readProxyFlag(n, `params.nodes[${index}]`);
      return { url: n.url, ...(n.ws_url === undefined ? {} : { wsUrl: n.ws_url }), ...(gatewayProxy === undefined ? {} : { gatewayProxy }) };
    }),
    tokens: params.erc20_tokens_requests.map((t) => ({
      ticker: t.ticker,
      ...(t.required_confirmations === undefined ? {} : { requiredConfirmations: t.required_confirmations }),
    })),
    getBalances: params.get_balances,
    keyPolicy: policy.type,
    ...toSwapContracts(params),
    ...(params.nft_req === undefined ? {} : { nft: { url: params.nft_req.info.url, gatewayProxy: readProxyFlag(params.nft_req.info, 'params.nft_req.info') ?? false } }),
    ...(params.mm2 === undefined ? {} : { mm2: params.mm2 }),
    hd: toHdRequest(params),
    ...toGasStation(params, 'params.'),
    ...toSettingsRequest(params),
    ...(params.swap_v2_contracts === undefined ? {} : { swapV2Contracts: toSwapV2Contracts(params.swap_v2_contracts) }),
  };
}

/**
 * The gas station fields in domain form, one rule for every method (`fieldPrefix`: `params.` for
 * v2). Without `gas_station_url`, `gas_station_decimals` and `gas_station_policy` have no effect:
 * at their defaults they are accepted, other values refused (spec/requestDefaults.ts).
 */
export function toGasStation(
  params: {
    readonly gas_station_url?: string;
    readonly gas_station_decimals?: number;
    readonly gas_station_policy?: { readonly policy: 'MeanAverageFast' | 'Average' };
  },
  fieldPrefix: string,
): { gasStation?: GasStationSpec } {
  if (params.gas_station_url === undefined) {
    const problem = withoutEffectMessage(
      [
        { field: 'gas_station_decimals', path: `${fieldPrefix}gas_station_decimals`, value: params.gas_station_decimals },
        { field: 'gas_station_policy', path: `${fieldPrefix}gas_station_policy`, value: params.gas_station_policy },
      ],
      `given without ${fieldPrefix}gas_station_url`,
      "add the station's URL",
    );
    if (problem !== undefined) throw invalidRequest(problem);
    return {};
  }
  return {
    gasStation: {
      url: params.gas_station_url,
      decimals: params.gas_station_decimals ?? REQUEST_DEFAULTS.gas_station_decimals,
      policy: params.gas_station_policy?.policy ?? REQUEST_DEFAULTS.gas_station_policy.policy,
    },
  };
}

/** The settings fields every activation method shares, in domain form (absent stays absent: the planner falls back). */
export function toSettingsRequest(params: {
  readonly required_confirmations?: number;
  readonly requires_notarization?: boolean;
  readonly tx_history?: boolean;
}): { requiredConfirmations?: number; requiresNotarization?: boolean; txHistory?: boolean } {
  return {
    ...(params.required_confirmations === undefined ? {} : { requiredConfirmations: params.required_confirmations }),
    ...(params.requires_notarization === undefined ? {} : { requiresNotarization: params.requires_notarization }),
    ...(params.tx_history === undefined ? {} : { txHistory: params.tx_history }),
  };
}

/** spec 2.2 SwapV2Contracts in domain form (checked by the EVM family). */
function toSwapV2Contracts(v2: NonNullable<EnableEthWithTokensParams['swap_v2_contracts']>): SwapV2Contracts {
  return { takerSwapV2Contract: v2.taker_swap_v2_contract, makerSwapV2Contract: v2.maker_swap_v2_contract, nftMakerSwapV2Contract: v2.nft_maker_swap_v2_contract };
}

/** The swap contract fields in domain form: `null` is the same as left out (as the reference reads them). */
export function toSwapContracts(params: {
  readonly swap_contract_address?: string | null;
  readonly fallback_swap_contract?: string | null;
}): { swapContractAddress?: string; fallbackSwapContract?: string } {
  return {
    ...(params.swap_contract_address == null ? {} : { swapContractAddress: params.swap_contract_address }),
    ...(params.fallback_swap_contract == null ? {} : { fallbackSwapContract: params.fallback_swap_contract }),
  };
}

/** spec 2.2 AddressPath in domain form. */
export function toAddressPathRequest(path: Static<typeof AddressPath>): AddressPathRequest {
  return {
    ...(path.account_id === undefined ? {} : { accountId: path.account_id }),
    ...(path.address_id === undefined ? {} : { addressId: path.address_id }),
    ...(path.chain === undefined ? {} : { chain: path.chain === 1 || path.chain === 'Internal' ? 'Internal' : 'External' }),
    ...(path.derivation_path === undefined ? {} : { derivationPath: path.derivation_path }),
  };
}

/** The HD fields of a request in domain form (the same fields in every method that takes them). */
export function toHdRequest(params: {
  readonly path_to_address?: Static<typeof AddressPath>;
  readonly gap_limit?: number;
  readonly scan_policy?: HdRequest['scanPolicy'];
  readonly min_addresses_number?: number;
}): HdRequest {
  const path = params.path_to_address;
  return {
    ...(path === undefined ? {} : { pathToAddress: toAddressPathRequest(path) }),
    ...(params.gap_limit === undefined ? {} : { gapLimit: params.gap_limit }),
    ...(params.scan_policy === undefined ? {} : { scanPolicy: params.scan_policy }),
    ...(params.min_addresses_number === undefined ? {} : { minAddressesNumber: params.min_addresses_number }),
  };
}

/** `enable_eth_with_tokens` (v2). */
export function enableEthWithTokensMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.V2,
    params: enableEthWithTokensParams,
    admit: admitActivation((request) => service.assertCanActivate(request), ActivationVia.EnableEthWithTokens),
    async handle(params) {
      const command = toPlatformCommand(params, ActivationVia.EnableEthWithTokens);
      if (command.keyPolicy === KeyPolicy.Hardware) {
        const message = 'Hardware policy must be activated within task manager (task::enable_eth::init)';
        throw errorSentence(ErrorType.PrivKeyNotAllowed, message);
      }
      // The summary the coin's machine recorded in CoinActivated (summarized once, there).
      const { summary } = await service.enablePlatformWithTokens(command);
      return renderActivationResult(summary, params.get_balances);
    },
  });
}
