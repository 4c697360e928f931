/**
 * The checks of legacy `enable` for an EVM coin or ERC20 token (spec 4.7), in the order the
 * service runs them: urls → swap contracts → the chain (an ERC20's platform and contract) → gas
 * station. Pure; throws the first failure as a legacy error (only its message reaches the client).
 */
import { parseCoinProtocol, protocolTypeName, type CoinEntry } from '../../spec/coins.ts';
import { resolveAddressPath } from '../../actors/hdPlan.ts';
import type { AddressPath } from '../../actors/ports/keyProvider.ts';
import type { EnableActivationCommand, GasStationSpec, PlanContext } from '../../actors/ports/chainFamily.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import type { TokenToRead } from './accountReader.ts';
import { ERC20_RULE, planSwapContracts } from './evmAddressRules.ts';
import type { SwapContracts } from '../../machines/activation.types.ts';
import type { EvmEndpoint } from './evmNodes.ts';
import { EVM_NODE_SCHEMES, withMulticall } from './evmNodePlan.ts';
import { planGasStation } from './gasStation.ts';
import { hasScheme } from '../../actors/platformPlan.ts';
import { invalidRequest } from '../../spec/errors.ts';

/** Confirmations an EVM coin waits for when neither the request nor the coins file says (spec 8). */
const DEFAULT_REQUIRED_CONFIRMATIONS = 3;

/** Validated parameters of a legacy EVM `enable` (never logged: URLs may hold API keys). */
export interface LegacyEvmParams {
  /** The coin's own coins-file entry (its key is derived for it). */
  readonly entry: CoinEntry;
  readonly chainId: number;
  readonly nodes: readonly EvmEndpoint[];
  /** Set for an ERC20: its contract, and its decimals when the coins file has them. */
  readonly token: TokenToRead | undefined;
  /** The native coin's decimals (for an ERC20 the token's rule applies instead). */
  readonly decimals: number;
  readonly requiredConfirmations: number;
  readonly gasStation: GasStationSpec | undefined;
  /** HD mode: the address to enable (`path_to_address`); default account 0, External, 0. */
  readonly addressPath?: AddressPath;
  /** The request's swap contracts, as validated (recorded in the plan, not used). */
  readonly swapContracts: SwapContracts;
}

/** Runs the checks of a legacy EVM `enable`; `context.platform` is the coin's own entry. */
export function planLegacyEvmEnable(command: EnableActivationCommand, context: PlanContext): LegacyEvmParams {
  if (command.addressFormat !== undefined) {
    throw invalidRequest(`address_format: ${command.ticker} is an EVM coin, whose address has one format; address_format applies to UTXO coins`);
  }
  const urls = planUrls(command.ticker, command.urls);
  const swapContracts = planSwapContracts(command, { ticker: command.ticker, required: true, fieldPrefix: '' });
  const { chainId, token, platformEntry } = planChain(command.ticker, context);
  const nodes = withMulticall(urls, platformEntry);
  const gasStation = planGasStation(command.gasStation, 'gas_station_url');
  const entry = context.platform;
  return {
    entry,
    chainId,
    nodes,
    token,
    decimals: entry.decimals ?? 18,
    requiredConfirmations: command.requiredConfirmations ?? entry.required_confirmations ?? DEFAULT_REQUIRED_CONFIRMATIONS,
    gasStation,
    swapContracts,
    ...(command.pathToAddress === undefined ? {} : { addressPath: resolveAddressPath(entry, command.pathToAddress) }),
  };
}

/** At least one url, each http(s) or ws(s). A refused url is named by index and origin only (paths may hold API keys). */
function planUrls(ticker: string, urls: readonly string[] | undefined): EvmEndpoint[] {
  if (urls === undefined || urls.length === 0) throw invalidRequest(`Enable request for ${ticker} coin must have at least 1 node URL`);
  return urls.map((url, index) => {
    if (hasScheme(url, EVM_NODE_SCHEMES)) return { url, gatewayProxy: false };
    throw invalidRequest(`urls[${index}] ${urlLabel(url)}: invalid node address, only http(s):// and ws(s):// nodes are supported`);
  });
}

/** The chain id and platform entry (an ERC20's platform's) and, for an ERC20, its contract to read. */
function planChain(
  ticker: string,
  { platform: entry, platformProtocol: protocol, coins }: PlanContext,
): { chainId: number; token: TokenToRead | undefined; platformEntry: CoinEntry } {
  if (protocol.type === 'ETH') {
    if (protocol.chainId === undefined) throw invalidRequest(`Failed to activate '${ticker}': chain_id is not set in the coins config`);
    return { chainId: protocol.chainId, token: undefined, platformEntry: entry };
  }
  if (protocol.type !== 'ERC20') throw new Error(`legacy EVM enable planned for a ${protocolTypeName(protocol)} coin`);
  const failed = (why: string) => invalidRequest(`Failed to activate ERC20 token '${ticker}': ${why}`);
  const platformEntry = coins.find(protocol.platform);
  if (platformEntry === undefined) throw failed(`the platform '${protocol.platform}' is not defined in the coins config.`);
  const parsed = parseCoinProtocol(platformEntry);
  if (!parsed.ok) throw failed(`the platform '${protocol.platform}' protocol cannot be parsed: ${parsed.error}`);
  if (parsed.protocol.type !== 'ETH') throw failed(`the platform protocol '${protocolTypeName(parsed.protocol)}' must be ETH`);
  if (parsed.protocol.chainId === undefined) throw failed(`the platform '${protocol.platform}' has no chain_id in the coins config`);
  const contract = ERC20_RULE.contractAddress(protocol.contractAddress);
  if ('problem' in contract) throw failed(`contract_address ${contract.problem}`);
  return { chainId: parsed.protocol.chainId, token: { ticker, contractAddress: contract.address, decimals: entry.decimals }, platformEntry };
}
