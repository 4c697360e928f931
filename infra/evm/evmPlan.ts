import type { CoinEntry } from '../../spec/coins.ts';
import type { GasStationSpec, PlanContext, PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { planTokens, platformPlan } from '../../actors/platformPlan.ts';
import { ChainFamilyId, type ActivationPlan } from '../../machines/activation.types.ts';
import type { TokenToRead } from './accountReader.ts';
import type { EvmEndpoint } from './evmNodes.ts';
import { planEvmNodes, withMulticall } from './evmNodePlan.ts';
import { ERC20_RULE, planSwapContracts, planSwapV2Contracts } from './evmAddressRules.ts';
import { planGasStation } from './gasStation.ts';
import type { NftIndexerPlan } from '../nftIndexer/nftPlan.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';

/** Validated EVM parameters carried in the plan (never logged: node URLs may hold API keys). */
export interface EvmPlanParams {
  readonly platform: CoinEntry;
  readonly chainId: number;
  readonly decimals: number;
  readonly nodes: readonly EvmEndpoint[];
  readonly tokens: readonly TokenToRead[];
  /** The platform's gas station (its tokens share it), read at activation and refreshed after. */
  readonly gasStation: GasStationSpec | undefined;
  /** `nft_req`, checked by the family: the wallet's NFTs are listed alongside the chain read. */
  readonly nftIndexer?: NftIndexerPlan;
}

/**
 * The plan of `enable_eth_with_tokens` / `task::enable_eth::init` for an EVM platform, after the
 * platform's own checks (docs/compatibility.md §7): its chain id, the swap contracts and swap v2
 * contracts (recorded in the plan), then the shared token and node checks, then the gas station's
 * URL. Pure; throws the first failure.
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
  // As the reference: a wallet-only coin makes no swaps, so it may leave the swap contract out.
  const required = context.platform.wallet_only !== true;
  const swapContracts = planSwapContracts(command, { ticker: command.ticker, required, fieldPrefix: 'params.' });
  const v2Required = required && context.useTradingProtoV2 === true;
  const swapV2Contracts = planSwapV2Contracts(command, { ticker: command.ticker, required: v2Required, fieldPrefix: 'params.' });
  const tokens = planTokens(command, context, ERC20_RULE);
  const nodes = withMulticall(planEvmNodes(command), context.platform);
  const gasStation = planGasStation(command.gasStation, 'params.gas_station_url');
  const params: EvmPlanParams = { platform: context.platform, chainId, decimals: context.platform.decimals ?? 18, nodes, tokens, gasStation };
  return { ...platformPlan(command, ChainFamilyId.Evm, params), swapContracts, ...(swapV2Contracts === undefined ? {} : { swapV2Contracts }) };
}
