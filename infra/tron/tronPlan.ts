import type { CoinEntry } from '../../spec/coins.ts';
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../../spec/errors.ts';
import type { PlanContext, PlatformActivationCommand } from '../../actors/ports/chainFamily.ts';
import { planHttpNodes, planTokens, type PlannedToken, type TokenRule } from '../../actors/platformPlan.ts';
import { KeyPolicy } from '../../machines/activation.types.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { evmToTronBase58, tronToEvmAddress } from '../keys/tronAddress.ts';

/** Validated TRON parameters carried in the plan (never logged: node URLs may hold API keys). */
export interface TronPlanParams {
  readonly platform: CoinEntry;
  readonly decimals: number;
  readonly nodes: readonly TronNode[];
  /** Contract addresses in base58 (`T…`). */
  readonly tokens: readonly PlannedToken[];
  /** The network's multicall contract (base58), from the entry's `protocol_data.multicall_address`. */
  readonly multicall?: string;
}

/** A node's API base URL, and whether a gateway proxy in front of it wants signed requests. */
export interface TronNode {
  readonly url: string;
  readonly gatewayProxy: boolean;
}

/** TRC20 tokens: contract as base58 `T…` or hex `41…`, kept in base58. */
export const TRC20_RULE: TokenRule = {
  protocolType: 'TRC20',
  contractAddress(raw) {
    const evm = raw.startsWith('T') || /^41[0-9a-fA-F]{40}$/.test(raw) ? tronToEvmAddress(raw) : undefined;
    return evm === undefined ? { problem: 'is not a TRON address (base58 T… or hex 41…)' } : { address: evmToTronBase58(evm) };
  },
};

/**
 * The TRON checks of `enable_eth_with_tokens` / `task::enable_eth::init` (spec 1.8, 4.5): only
 * `ticker`, `nodes` (`url` only, HTTP(S), and `gateway_proxy`) and the tokens matter. TRON is
 * wallet-only: swap contracts would have no effect, so they are refused (null or absent is fine), as
 * are NFTs, a gas station and hardware keys, each clearly.
 */
export function planTronActivation(command: PlatformActivationCommand, context: PlanContext): TronPlanParams {
  if (command.keyPolicy === KeyPolicy.Hardware) {
    const message = `Hardware policy is not supported for ${command.ticker}: TRON activates with the wallet's own key only`;
    throw errorSentence(ErrorType.PrivKeyNotAllowed, message);
  }
  if (command.gasStation !== undefined) {
    throw invalidRequest(`params.gas_station_url: TRON (${command.ticker}) pays fees in bandwidth and energy, which no gas station prices; omit it`);
  }
  const contracts = [
    ['swap_contract_address', command.swapContractAddress],
    ['fallback_swap_contract', command.fallbackSwapContract],
    ['swap_v2_contracts', command.swapV2Contracts],
  ] as const;
  for (const [field, value] of contracts) {
    if (value !== undefined) throw invalidRequest(`params.${field}: TRON (${command.ticker}) is wallet-only and makes no swaps (spec 1.8); omit it`);
  }
  if (command.nft !== undefined) {
    throw invalidRequest(`params.nft_req: TRON (${command.ticker}) has no NFT support; omit nft_req`);
  }
  const tokens = planTokens(command, context, TRC20_RULE);
  const why = 'TRON nodes are HTTP(S) API base URLs (no WebSocket, no gRPC)';
  const nodes = planHttpNodes(command, why).map((url, index) => ({ url, gatewayProxy: command.nodes[index]!.gatewayProxy === true }));
  command.nodes.forEach((node, index) => {
    if (node.wsUrl !== undefined) throw invalidRequest(`nodes[${index}].ws_url ${urlLabel(node.wsUrl)}: ${why}; send url only`);
  });
  const multicall = multicallContract(command.ticker, context);
  return { platform: context.platform, decimals: context.platform.decimals ?? 6, nodes, tokens, ...(multicall === undefined ? {} : { multicall }) };
}

/** The entry's multicall contract in base58; its shape was checked with the protocol, its checksum here. */
function multicallContract(ticker: string, context: PlanContext): string | undefined {
  const protocol = context.platformProtocol;
  const raw = protocol.type === 'TRX' ? protocol.multicallAddress : undefined;
  if (raw === undefined) return undefined;
  const evm = tronToEvmAddress(raw);
  if (evm === undefined) {
    const error = 'TRX protocol: protocol_data.multicall_address is not a valid TRON address (bad checksum)';
    throw new ActivationError(ErrorType.CoinProtocolParseError, `Platform coin ${ticker} protocol parsing failed: ${error}`, { ticker, error });
  }
  return evmToTronBase58(evm);
}
