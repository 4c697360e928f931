import type { CoinEntry } from '../../spec/coins.ts';
import type { PlanContext, PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { planHttpNodes, planTokens } from '../../actors/platformPlan.ts';
import type { TokenToRead } from './accountReader.ts';
import { ERC20_RULE, isEvmAddress } from './evmAddressRules.ts';
import { invalidRequest } from '../../spec/errors.ts';

/** Validated EVM parameters carried in the plan (never logged: node URLs may hold API keys). */
export interface EvmPlanParams {
  readonly platform: CoinEntry;
  readonly chainId: number;
  readonly decimals: number;
  readonly nodes: readonly string[];
  readonly tokens: readonly TokenToRead[];
}

/**
 * The EVM checks of `enable_eth_with_tokens` after the platform's own (docs/compatibility.md §7): swap
 * contracts, then the shared token and node checks. Pure; throws the first failure.
 */
export function planEvmActivation(command: PlatformActivationCommand, context: PlanContext, chainId: number): EvmPlanParams {
  requireContractAddress('swap_contract_address', command.swapContractAddress);
  requireContractAddress('fallback_swap_contract', command.fallbackSwapContract);
  const tokens = planTokens(command, context, ERC20_RULE);
  const nodes = planHttpNodes(command);
  return { platform: context.platform, chainId, decimals: context.platform.decimals ?? 18, nodes, tokens };
}

/** EVM swaps need both swap contracts (spec 4.1); a missing or malformed one is `InvalidRequest`. */
function requireContractAddress(field: string, value: string | undefined): void {
  const problem = value === undefined ? 'is required for an EVM platform' : isEvmAddress(value) ? undefined : 'is not an EVM address';
  if (problem !== undefined) throw invalidRequest(`params.${field}: ${problem}`);
}
