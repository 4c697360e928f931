import { getAddress, isAddress } from 'ethers';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { parseCoinProtocol, type CoinEntry } from '../../spec/coins.ts';
import type { PlanContext, PlatformActivationCommand } from '../../actors/chainFamily.ts';
import type { TokenToRead } from './accountReader.ts';

/** Validated EVM parameters carried in the plan (never logged: node URLs may hold API keys). */
export interface EvmPlanParams {
  readonly platform: CoinEntry;
  readonly chainId: number;
  readonly decimals: number;
  readonly nodes: readonly string[];
  readonly tokens: readonly TokenToRead[];
}

/**
 * The EVM checks of `enable_eth_with_tokens` after the platform's own (behaviour notes §7): each
 * token in request order (config, protocol parse, ERC20 with an EIP-55 address, same platform),
 * then the nodes. Pure; throws the first failure as an `ActivationError`.
 */
export function planEvmActivation(command: PlatformActivationCommand, context: PlanContext, chainId: number): EvmPlanParams {
  requireContractAddress('swap_contract_address', command.swapContractAddress);
  requireContractAddress('fallback_swap_contract', command.fallbackSwapContract);
  const seen = new Set<string>();
  const tokens = command.tokens.map(({ ticker }) => {
    if (seen.has(ticker)) {
      throw new ActivationError(ErrorType.InvalidRequest, `token ${ticker} is requested more than once`, `token ${ticker} is requested more than once`);
    }
    seen.add(ticker);
    return planToken(ticker, command.ticker, context);
  });
  if (command.nodes.length === 0) {
    const message = `Enable request for ${command.ticker} coin must have at least 1 node`;
    throw new ActivationError(ErrorType.AtLeastOneNodeRequired, message, message);
  }
  const nodes = command.nodes.map((node, index) => {
    if (!/^https?:\/\/[^/]/i.test(node.url) || !URL.canParse(node.url)) {
      const message = `nodes[${index}].url: expected an http:// or https:// URL`;
      throw new ActivationError(ErrorType.InvalidRequest, message, message);
    }
    return node.url;
  });
  return { platform: context.platform, chainId, decimals: context.platform.decimals ?? 18, nodes, tokens };
}

/** EVM swaps need both swap contracts (spec 4.1); a missing or malformed one is `InvalidRequest`. */
function requireContractAddress(field: string, value: string | undefined): void {
  const problem = value === undefined ? 'is required for an EVM platform' : isAddress(value) ? undefined : 'is not an EVM address';
  if (problem !== undefined) {
    const message = `params.${field}: ${problem}`;
    throw new ActivationError(ErrorType.InvalidRequest, message, message);
  }
}

function planToken(ticker: string, platform: string, { coins }: PlanContext): TokenToRead {
  const entry = coins.find(ticker);
  if (entry === undefined) {
    throw new ActivationError(ErrorType.TokenConfigIsNotFound, `Token ${ticker} config is not found`, ticker);
  }
  const parsed = parseCoinProtocol(entry);
  if (!parsed.ok) {
    throw new ActivationError(
      ErrorType.TokenProtocolParseError,
      `Token ${ticker} protocol parsing failed: ${parsed.error}`,
      { ticker, error: parsed.error },
    );
  }
  const unexpected = (why: string) =>
    new ActivationError(ErrorType.UnexpectedTokenProtocol, `Unexpected token protocol ${JSON.stringify(entry.protocol)} for ${ticker}: ${why}`, {
      ticker,
      protocol: entry.protocol,
    });
  const protocol = parsed.protocol;
  if (protocol.type !== 'ERC20') throw unexpected(`expected ERC20 under ${platform}`);
  if (!isChecksummed(protocol.contractAddress)) throw unexpected('contract_address is not an EIP-55 checksummed address');
  if (protocol.platform !== platform) {
    throw new ActivationError(
      ErrorType.PlatformCoinMismatch,
      `Token ${ticker} belongs to platform ${protocol.platform}, not ${platform}`,
    );
  }
  return { ticker, contractAddress: protocol.contractAddress, decimals: entry.decimals };
}

/** Memo of checksum verdicts: the same coins-file addresses are checked on every activation. */
const checksumVerdicts = new Map<string, boolean>();

function isChecksummed(address: string): boolean {
  let verdict = checksumVerdicts.get(address);
  if (verdict === undefined) {
    try {
      verdict = getAddress(address) === address;
    } catch {
      verdict = false;
    }
    if (checksumVerdicts.size < 100_000) checksumVerdicts.set(address, verdict);
  }
  return verdict;
}
