/**
 * The one rule of the settings a coin keeps from its activation (issue 13; docs/compatibility.md
 * §13): decided once, by the planner, after the family's checks. Pure.
 */
import type { CoinEntry } from '../spec/coins.ts';
import type { CoinSettings, GasStationSetting } from '../spec/coinSettings.ts';
import { urlLabel } from '../kernel/urlLabel.ts';
import { REQUEST_DEFAULTS } from '../spec/requestDefaults.ts';
import type { ActivationPlan, PlannedSettings } from '../machines/activation.types.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { GasStationSpec, NftIndexerSpec } from './ports/chainFamily.ts';

/** Confirmations when neither the request nor the coins entry gives any (spec 8). @default 3 */
export const DEFAULT_REQUIRED_CONFIRMATIONS: number = REQUEST_DEFAULTS.required_confirmations;

/** What a request says about the settings (every field optional: absent falls back). */
export interface SettingsRequest {
  readonly requiredConfirmations?: number;
  readonly requiresNotarization?: boolean;
  readonly mm2?: number;
  readonly txHistory?: boolean;
  readonly gasStation?: GasStationSpec;
  /** `nft_req` (platforms only: tokens keep no indexer). */
  readonly nft?: NftIndexerSpec;
  /** Per token: its own `required_confirmations`, which wins for that token. */
  readonly tokens?: readonly { readonly ticker: string; readonly requiredConfirmations?: number }[];
}

/** Confirmations: the request's, else the coins entry's, else `fallback` (3 for a coin of its own). */
export function requiredConfirmations(requested: number | undefined, entry: CoinEntry | undefined, fallback = DEFAULT_REQUIRED_CONFIRMATIONS): number {
  return requested ?? entry?.required_confirmations ?? fallback;
}

/** `requires_notarization`: the request's, else the coins entry's, else false (spec 8). */
export function requiresNotarization(requested: boolean | undefined, entry: CoinEntry | undefined): boolean {
  return requested ?? entry?.requires_notarization ?? false;
}

/** A gas station as kept: its origin only, with its decimals and policy. */
export function gasStationSetting(station: GasStationSpec | undefined): GasStationSetting | null {
  return station === undefined ? null : { origin: urlLabel(station.url), decimals: station.decimals, policy: station.policy };
}

/** An `mm2` value as kept: 0 or 1, `null` when neither request nor entry has one. */
function mm2Of(requested: number | undefined, entry: CoinEntry | undefined): 0 | 1 | null {
  const value = requested ?? entry?.mm2;
  return value === 0 || value === 1 ? value : null;
}

/**
 * The settings of a planned activation: the coin's from the request and its entry; each token's
 * own confirmations (its request, its entry, else the platform's, as the reference), its entry's
 * `mm2` and `wallet_only`, and the rest inherited from the platform (notarization, history, gas
 * station, and the swap contracts the token's swaps use).
 */
export function planSettings(request: SettingsRequest, entry: CoinEntry, coins: CoinsCatalog, plan: ActivationPlan): PlannedSettings {
  const coin: CoinSettings = {
    requiredConfirmations: requiredConfirmations(request.requiredConfirmations, entry),
    requiresNotarization: requiresNotarization(request.requiresNotarization, entry),
    mm2: mm2Of(request.mm2, entry),
    walletOnly: entry.wallet_only === true,
    swapContractAddress: plan.swapContracts?.swapContractAddress ?? null,
    fallbackSwapContract: plan.swapContracts?.fallbackSwapContract ?? null,
    swapV2Contracts: plan.swapV2Contracts ?? null,
    gasStation: gasStationSetting(request.gasStation),
    txHistory: request.txHistory ?? false,
    ...(plan.electrumConnections === undefined ? {} : { electrumConnections: { ...plan.electrumConnections } }),
    ...(request.nft === undefined ? {} : { nftIndexer: { origin: urlLabel(request.nft.url), gatewayProxy: request.nft.gatewayProxy } }),
  };
  const requestedTokens = new Map((request.tokens ?? []).map((t) => [t.ticker, t.requiredConfirmations]));
  const tokens = Object.fromEntries(plan.tokens.map((ticker) => [ticker, tokenSettings(coin, coins.find(ticker), requestedTokens.get(ticker))]));
  return { coin, tokens };
}

/**
 * A token's settings on its platform (with the platform's activation, or added later by
 * `enable_erc20`): its own confirmations (its request, its entry, else the platform's current
 * ones, as the reference), its entry's `mm2` and `wallet_only`, the rest the platform's.
 */
export function tokenSettings(platform: CoinSettings, tokenEntry: CoinEntry | undefined, requested: number | undefined): CoinSettings {
  const { nftIndexer: _platformOnly, electrumConnections: _coinOnly, ...inherited } = platform;
  return {
    ...inherited,
    requiredConfirmations: requiredConfirmations(requested, tokenEntry, platform.requiredConfirmations),
    mm2: mm2Of(undefined, tokenEntry),
    walletOnly: tokenEntry?.wallet_only === true,
  };
}
