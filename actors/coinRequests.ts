/**
 * What callers ask of the coin registry (`coinRegistry.ts`) and what it answers them: requests,
 * reservations, views, and the "already activated" answer of each request form.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import {
  ActivationVia,
  isLegacyVia,
  isStandaloneVia,
  type ActivatedCoin,
  type ActivatedToken,
  type ActivationPlan,
  type TokenPlan,
} from '../machines/activation.types.ts';
import type { GasPriceFeed } from './ports/chainFamily.ts';
import type { CoinWatch } from './ports/balanceWatch.ts';
import type { Clock } from '../kernel/clock.ts';

/** Runs the chain work of a plan; must stop when `signal` aborts. */
export type ActivateCoin = (plan: ActivationPlan, signal: AbortSignal) => Promise<ActivatedCoin>;

/** Routes a plan to its chain family's `activate` (`ChainFamilies` in production). */
export interface FamilyRouter {
  readonly activate: ActivateCoin;
  /** The gas station of an active coin, if it has one (refreshed while it is active). */
  gasPriceFeed?(coin: ActivatedCoin): GasPriceFeed | undefined;
  /** What to watch of an active coin and through which node (issue 24); `undefined`: not watched. */
  balanceWatch?(coin: ActivatedCoin): CoinWatch | undefined;
  /** Reads a token for an active platform (`enable_erc20`); must stop when `signal` aborts. */
  readToken?(platform: ActivatedCoin, token: TokenPlan, signal: AbortSignal): Promise<ActivatedToken>;
}

/** How active coins' gas stations are refreshed: on `clock`, every `intervalMs`. */
export interface GasPriceRefreshOptions {
  readonly clock: Clock;
  readonly intervalMs: number;
}

/** A coin as the registry sees it: its state and, when enabled, what activation learned. */
export interface CoinView {
  readonly ticker: string;
  readonly state: 'inactive' | 'activating' | 'active' | 'passive';
  readonly coin: ActivatedCoin | null;
  /** Whether its latest activation used a hardware key (its tokens use the same key). */
  readonly hardwareKey: boolean;
}

/** Held by a task from `init` until it ends, so nothing else activates its coin meanwhile. */
export interface Reservation {
  readonly ticker: string;
  /** Who holds it, as the coin's machine knows it. */
  readonly holder: string;
  release(): void;
}

export interface ActivateOptions {
  /** The caller's reservation of the ticker (tasks); without one a reserved ticker is refused. */
  readonly reservation?: Reservation;
  /** Called when the chain work is done, before the outcome is durable. */
  readonly onChainRead?: () => void;
  /** The task that runs this activation: its progress events name it (`taskId`). */
  readonly taskId?: number;
}

/**
 * What admission reads of a request: the coin, the request's form, and the tokens it would enable
 * with the coin (none for the legacy forms). An `ActivationPlan` is one.
 */
export interface ActivationRequest {
  readonly ticker: string;
  readonly via: ActivationVia;
  readonly tokens: readonly string[];
}

/**
 * A request whose plan is built only once the registry has admitted it, so "already activated"
 * comes before any check of the request (the reference's order). `plan` runs synchronously; if it
 * throws, nothing is registered. The plan must be for the same coin, form and tokens.
 */
export interface PlanRequest extends ActivationRequest {
  plan(): ActivationPlan;
}

/**
 * "Already activated" in the request's form: v2 platform forms answer the bare ticker, legacy the
 * sentence, the standalone tasks the reference's `CoinIsAlreadyActivated`
 * (`init_standalone_coin_error.rs`: "Coin {ticker} is activated already", HTTP 400), and
 * `enable_erc20` its own type with a sentence holding "activated already", the words the
 * reference's client looks for (docs/compatibility.md §18).
 */
export function alreadyActivated(ticker: string, via: ActivationVia): ActivationError {
  if (via === ActivationVia.EnableErc20) return new ActivationError(ErrorType.TokenIsAlreadyActivated, `Token ${ticker} is activated already`, ticker);
  if (isStandaloneVia(via)) {
    return new ActivationError(ErrorType.CoinIsAlreadyActivated, `Coin ${ticker} is activated already`, { ticker }, { httpStatus: 400 });
  }
  const message = isLegacyVia(via) ? `Coin ${ticker} already initialized` : ticker;
  return new ActivationError(ErrorType.PlatformIsAlreadyActivated, message, ticker);
}

/**
 * A token to add to its active platform (`enable_erc20`), planned only once admitted: `plan` runs
 * synchronously and throws the first refusal (platform not active, a field that differs from the
 * platform's); nothing is registered then.
 */
export interface TokenRequest {
  readonly ticker: string;
  readonly via: ActivationVia;
  plan(): TokenPlan;
}

/** An added token: the token as read, its platform as it is now. */
export interface TokenActivation {
  readonly token: ActivatedToken;
  readonly platform: ActivatedCoin;
}
