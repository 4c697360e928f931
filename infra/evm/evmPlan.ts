import type { CoinEntry } from '../../spec/coins.ts';
import type { PlanContext, PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { planTokens, platformPlan } from '../../actors/platformPlan.ts';
import { ChainFamilyId, type ActivationPlan } from '../../machines/activation.types.ts';
import type { TokenToRead } from './accountReader.ts';
import type { EvmEndpoint } from './evmNodes.ts';
import { planEvmNodes } from './evmNodePlan.ts';
import { ERC20_RULE, isEvmAddress } from './evmAddressRules.ts';
import { ActivationError, ErrorType, invalidRequest } from '../../spec/errors.ts';

/** Validated EVM parameters carried in the plan (never logged: node URLs may hold API keys). */
export interface EvmPlanParams {
  readonly platform: CoinEntry;
  readonly chainId: number;
  readonly decimals: number;
  readonly nodes: readonly EvmEndpoint[];
  readonly tokens: readonly TokenToRead[];
}

/**
 * The plan of `enable_eth_with_tokens` / `task::enable_eth::init` for an EVM platform, after the
 * platform's own checks (docs/compatibility.md §7): its chain id, the swap contracts, then the shared
 * token and node checks. Pure; throws the first failure.
 */
export function planEvmPlatform(command: PlatformActivationCommand, context: PlanContext): ActivationPlan {
  const protocol = context.platformProtocol;
  const chainId = protocol.type === 'ETH' ? (protocol.chainId ?? context.platform.chain_id) : undefined;
  if (chainId === undefined) {
    const error = 'chain_id is not set in the coins file';
    throw new ActivationError(ErrorType.CoinProtocolParseError, `Platform coin ${command.ticker} protocol parsing failed: ${error}`, {
      ticker: command.ticker,
      error,
    });
  }
  requireContractAddress('swap_contract_address', command.swapContractAddress);
  requireContractAddress('fallback_swap_contract', command.fallbackSwapContract);
  const tokens = planTokens(command, context, ERC20_RULE);
  const nodes = planEvmNodes(command);
  const params: EvmPlanParams = { platform: context.platform, chainId, decimals: context.platform.decimals ?? 18, nodes, tokens };
  return platformPlan(command, ChainFamilyId.Evm, params);
}

/** EVM swaps need both swap contracts (spec 4.1); a missing or malformed one is `InvalidRequest`. */
function requireContractAddress(field: string, value: string | undefined): void {
  const problem = value === undefined ? 'is required for an EVM platform' : isEvmAddress(value) ? undefined : 'is not an EVM address';
  if (problem !== undefined) throw invalidRequest(`params.${field}: ${problem}`);
}
