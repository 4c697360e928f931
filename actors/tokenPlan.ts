/**
 * The checks of `enable_erc20` once admitted (docs/compatibility.md §18), in the reference's order:
 * the token's coins entry and protocol, its platform active, that platform's family takes such
 * tokens, the contract address, then each field of the request against the platform it joins.
 * Pure and synchronous: a plan or the first refusal as an `ActivationError`; nothing registered.
 */
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../spec/errors.ts';
import { parseCoinProtocol } from '../spec/coins.ts';
import { urlLabel } from '../kernel/urlLabel.ts';
import { ActivationVia, KeyPolicy, type TokenPlan } from '../machines/activation.types.ts';
import type { CoinView } from './coinRequests.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { ChainFamilies } from './chainFamilies.ts';
import type { NodeSpec, TokenSupport } from './ports/chainFamily.ts';
import { tokenSettings } from './coinSettings.ts';

/** `enable_erc20` as a domain command: what each field of `activation_params` asks (absent: nothing). */
export interface TokenActivationCommand {
  readonly ticker: string;
  readonly requiredConfirmations?: number;
  /** Must be the platform's: a token is notarized as its platform is. */
  readonly requiresNotarization?: boolean;
  /** Must be the platform's: a token signs with its platform's key. */
  readonly keyPolicy?: KeyPolicy;
  /** Each must be one of the platform's nodes (with its proxy flag): a token reads through its platform's. */
  readonly nodes?: readonly NodeSpec[];
  /** Must be the platform's: a token swaps through its platform's contracts. */
  readonly swapContractAddress?: string;
  readonly fallbackSwapContract?: string;
}

/** Where the fields below live on the wire (refusals name them). */
const FIELD = 'params.activation_params.';

export function planTokenActivation(
  command: TokenActivationCommand,
  deps: { readonly coins: CoinsCatalog; readonly families: Pick<ChainFamilies, 'tokenSupport'>; readonly platformOf: (ticker: string) => CoinView },
): TokenPlan {
  const { ticker } = command;
  const entry = deps.coins.find(ticker);
  if (entry === undefined) throw new ActivationError(ErrorType.TokenConfigIsNotFound, `Token ${ticker} config is not found`, ticker);
  const parsed = parseCoinProtocol(entry);
  if (!parsed.ok) {
    const message = `Token ${ticker} protocol parsing failed: ${parsed.error}`;
    throw new ActivationError(ErrorType.TokenProtocolParseError, message, { ticker, error: parsed.error });
  }
  const unexpected = (why: string) =>
    new ActivationError(ErrorType.UnexpectedTokenProtocol, `Unexpected token protocol ${JSON.stringify(entry.protocol)} for ${ticker}: ${why}`, {
      ticker,
      protocol: entry.protocol,
    });
  const protocol = parsed.protocol;
  if (protocol.type !== 'ERC20' && protocol.type !== 'TRC20') throw unexpected('enable_erc20 activates ERC20 and TRC20 tokens only');
  const view = deps.platformOf(protocol.platform);
  const platform = view.coin;
  if (view.state !== 'active' || platform === null) {
    throw new ActivationError(ErrorType.PlatformCoinIsNotActivated, `Platform coin ${protocol.platform} is not activated`, protocol.platform);
  }
  const support = deps.families.tokenSupport(platform);
  if (support === undefined || support.rule.protocolType !== protocol.type) {
    const message = `${protocol.platform} is not a platform coin for token ${ticker}`;
    throw new ActivationError(ErrorType.UnsupportedPlatformCoin, message, { platform_coin_ticker: protocol.platform, token_ticker: ticker });
  }
  const contract = support.rule.contractAddress(protocol.contractAddress);
  if ('problem' in contract) throw unexpected(`contract_address ${contract.problem}`);
  if (platform.hd !== undefined) {
    const message = `${protocol.platform} was activated with an HD account: enable_erc20 reads a token at one address; list ${ticker} in erc20_tokens_requests when activating ${protocol.platform}`;
    throw errorSentence(ErrorType.UnexpectedDerivationMethod, message);
  }
  const settings = platform.settings;
  requireSame(command, { ...view, coin: platform }, support.nodes(platform));
  return {
    ticker,
    platform: protocol.platform,
    via: ActivationVia.EnableErc20,
    contractAddress: contract.address,
    decimals: entry.decimals,
    // A platform activated in this session always has settings (the planner decides them).
    ...(settings === undefined ? {} : { settings: tokenSettings(settings, entry, command.requiredConfirmations) }),
  };
}

/**
 * The fields the client sends but a token cannot set on its own (it shares them with its platform):
 * accepted when they say what the platform already does, refused naming the field otherwise.
 */
function requireSame(
  command: TokenActivationCommand,
  view: CoinView & { coin: NonNullable<CoinView['coin']> },
  platformNodes: ReturnType<TokenSupport['nodes']>,
): void {
  const platform = view.ticker;
  const settings = view.coin.settings;
  const platformPolicy = view.hardwareKey ? KeyPolicy.Hardware : KeyPolicy.ContextPrivKey;
  if (command.keyPolicy !== undefined && command.keyPolicy !== platformPolicy) {
    throw invalidRequest(`${FIELD}priv_key_policy: ${command.keyPolicy} differs from ${platform}'s ${platformPolicy}; a token signs with its platform's key`);
  }
  const notarized = settings?.requiresNotarization ?? false;
  if (command.requiresNotarization !== undefined && command.requiresNotarization !== notarized) {
    throw invalidRequest(`${FIELD}requires_notarization: ${command.requiresNotarization} differs from ${platform}'s ${notarized}; a token is notarized as its platform is`);
  }
  const known = new Map(platformNodes.map((n) => [n.url, n.gatewayProxy]));
  command.nodes?.forEach((node, index) => {
    for (const [field, url] of [['url', node.url], ['ws_url', node.wsUrl]] as const) {
      if (url !== undefined && !known.has(url)) {
        throw invalidRequest(`${FIELD}nodes[${index}].${field} ${urlLabel(url)} is not a node of ${platform}; a token reads through its platform's nodes, so give only those or leave nodes out`);
      }
    }
    const proxied = known.get(node.url);
    if (node.gatewayProxy !== undefined && node.gatewayProxy !== proxied) {
      throw invalidRequest(`${FIELD}nodes[${index}].gateway_proxy: ${node.gatewayProxy} differs from ${platform}'s node (${proxied}); a token reads through its platform's nodes as they are`);
    }
  });
  const contracts = [
    ['swap_contract_address', command.swapContractAddress, settings?.swapContractAddress ?? null],
    ['fallback_swap_contract', command.fallbackSwapContract, settings?.fallbackSwapContract ?? null],
  ] as const;
  for (const [field, given, own] of contracts) {
    if (given === undefined || (own !== null && given.toLowerCase() === own.toLowerCase())) continue;
    const has = own === null ? `${platform} has none (it makes no swaps here)` : `${platform}'s is ${own}`;
    throw invalidRequest(`${FIELD}${field}: ${given} differs: ${has}; a token swaps through its platform's contracts, so give the same or leave it out`);
  }
}
