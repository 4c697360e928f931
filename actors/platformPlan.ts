/**
 * Checks every platform-with-tokens family shares (docs/compatibility.md §7), after the platform's own:
 * each token in request order (config → protocol parse → the family's token protocol and address
 * → same platform), then the nodes. Pure; throws the first failure as an `ActivationError`.
 */
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../spec/errors.ts';
import { parseCoinProtocol } from '../spec/coins.ts';
import { urlLabel } from '../kernel/urlLabel.ts';
import type { PlanContext, PlatformActivationCommand, TokenRule } from './ports/chainFamily.ts';
import type { ActivationPlan, ChainFamilyId } from '../machines/activation.types.ts';

/** A token ready to read: its contract in the family's canonical form. */
export interface PlannedToken {
  readonly ticker: string;
  readonly contractAddress: string;
  /** From the coins file; when absent the family reads `decimals()` from the contract. */
  readonly decimals: number | undefined;
}

export type { TokenRule } from './ports/chainFamily.ts';

/** Tokens of `command` checked against `rule`, in request order; a repeated ticker is refused. */
export function planTokens(command: PlatformActivationCommand, context: PlanContext, rule: TokenRule): PlannedToken[] {
  const seen = new Set<string>();
  return command.tokens.map(({ ticker }) => {
    if (seen.has(ticker)) throw invalidRequest(`token ${ticker} is requested more than once`);
    seen.add(ticker);
    return planToken(ticker, command.ticker, context, rule);
  });
}

function planToken(ticker: string, platform: string, { coins }: PlanContext, rule: TokenRule): PlannedToken {
  const entry = coins.find(ticker);
  if (entry === undefined) {
    throw new ActivationError(ErrorType.TokenConfigIsNotFound, `Token ${ticker} config is not found`, ticker);
  }
  const parsed = parseCoinProtocol(entry);
  if (!parsed.ok) {
    throw new ActivationError(ErrorType.TokenProtocolParseError, `Token ${ticker} protocol parsing failed: ${parsed.error}`, {
      ticker,
      error: parsed.error,
    });
  }
  const unexpected = (why: string) =>
    new ActivationError(ErrorType.UnexpectedTokenProtocol, `Unexpected token protocol ${JSON.stringify(entry.protocol)} for ${ticker}: ${why}`, {
      ticker,
      protocol: entry.protocol,
    });
  const protocol = parsed.protocol;
  if (protocol.type !== rule.protocolType) throw unexpected(`expected ${rule.protocolType} under ${platform}`);
  const contract = rule.contractAddress(protocol.contractAddress);
  if ('problem' in contract) throw unexpected(`contract_address ${contract.problem}`);
  if (protocol.platform !== platform) {
    throw new ActivationError(ErrorType.PlatformCoinMismatch, `Token ${ticker} belongs to platform ${protocol.platform}, not ${platform}`);
  }
  return { ticker, contractAddress: contract.address, decimals: entry.decimals };
}

/**
 * The nodes' URLs: at least one, each `http(s)://`. A refused node is named by index and origin
 * (never its path or query, which may hold an API key). `why` says what the family expects.
 */
export function planHttpNodes(command: PlatformActivationCommand, why = 'expected an http:// or https:// URL'): string[] {
  return planNodeUrls(command, ['http', 'https'], why);
}

/** The nodes' URLs: at least one (`AtLeastOneNodeRequired`), each with one of `schemes`. */
export function planNodeUrls(command: PlatformActivationCommand, schemes: readonly string[], why: string): string[] {
  if (command.nodes.length === 0) {
    const message = `Enable request for ${command.ticker} coin must have at least 1 node`;
    throw errorSentence(ErrorType.AtLeastOneNodeRequired, message);
  }
  return command.nodes.map((node, index) => {
    if (!hasScheme(node.url, schemes)) throw invalidRequest(`nodes[${index}].url ${urlLabel(node.url)}: ${why}`);
    return node.url;
  });
}

/** Whether `url` is an absolute URL with a host and one of `schemes` (e.g. `https`). */
export function hasScheme(url: string, schemes: readonly string[]): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/[^/]/i.exec(url)?.[1]?.toLowerCase();
  return scheme !== undefined && schemes.includes(scheme) && URL.canParse(url);
}

/** The plan of a platform-with-tokens activation whose family-specific `params` hold the tokens. */
export function platformPlan<P extends { readonly tokens: readonly PlannedToken[] }>(
  command: PlatformActivationCommand,
  family: ChainFamilyId,
  params: P,
): ActivationPlan {
  return { ticker: command.ticker, family, via: command.via, tokens: params.tokens.map((t) => t.ticker), getBalances: command.getBalances, params };
}
