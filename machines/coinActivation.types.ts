/** The inputs, context and commands of the coin activation machine (`coinActivation.machine.ts`). */
import type { ActivationError } from '../spec/errors.ts';
import type { ActivatedCoin, ActivatedToken, ActivationPlan, ActivationSummary, ActivationVia, HdAddressRead, SettingChange, TokenPlan } from './activation.types.ts';

export interface CoinActivationInput {
  readonly ticker: string;
}

export interface CoinActivationContext {
  readonly ticker: string;
  /** Increments with every accepted ACTIVATE; correlates results with requests. */
  readonly attempt: number;
  readonly plan: ActivationPlan | null;
  readonly coin: ActivatedCoin | null;
  readonly lastError: ActivationError | null;
  /** Summary of the latest successful activation: the data of its `CoinActivated` event. */
  readonly summary: ActivationSummary | null;
  /** Holder of the reservation (a running task), or null. Only that holder may ACTIVATE. */
  readonly reservedBy: string | null;
  /** The tokens the holder will enable with this coin: held for it as long as the reservation. */
  readonly reservedTokens: readonly string[];
  /** Tokens being added to this active platform (`ADD_TOKEN`), each read by a child actor of its own. */
  readonly addingTokens: readonly TokenPlan[];
}

/** Commands the machine accepts. */
export type CoinActivationEvent =
  /** `holder`: the reservation the request holds, if any. */
  | { readonly type: 'ACTIVATE'; readonly plan: ActivationPlan; readonly holder?: string }
  /**
   * Holds the coin (and `tokens`, default none) for a task until RELEASE; accepted exactly where
   * ACTIVATE from `via` would be. Asked (never sent) with `asTokenOf` for a coin another platform's
   * request lists as its token: then only a free inactive coin is accepted, as a passive one is
   * re-activated only as a platform.
   */
  | {
      readonly type: 'RESERVE';
      readonly holder: string;
      readonly via: ActivationVia;
      readonly tokens?: readonly string[];
      readonly asTokenOf?: string;
    }
  | { readonly type: 'RELEASE'; readonly holder: string }
  | { readonly type: 'CANCEL' }
  | { readonly type: 'DISABLE'; readonly force: boolean }
  | { readonly type: 'DISABLE_TOKEN'; readonly ticker: string }
  /**
   * Adds a token to this platform while it is active (`enable_erc20`): accepted when the token is
   * neither enabled here nor already being added. Its chain work runs in a child actor; leaving
   * `active` stops it and fails the token.
   */
  | { readonly type: 'ADD_TOKEN'; readonly token: TokenPlan }
  /** A token child's outcome (its id is `token:<TICKER>`, see `tokenChildId`). */
  | { readonly type: `xstate.done.actor.token:${string}`; readonly output: ActivatedToken; readonly actorId: string }
  | { readonly type: `xstate.error.actor.token:${string}`; readonly error: unknown; readonly actorId: string }
  /**
   * Changes a setting of `ticker`: this coin (only while active, as the reference finds only
   * available coins) or one of its enabled tokens (also while this platform is passive or
   * re-activating: the token stays enabled).
   */
  | { readonly type: 'CHANGE_SETTING'; readonly ticker: string; readonly change: SettingChange }
  /**
   * Adds addresses to the active coin's HD account (account `accountIndex`): one handed out by
   * `get_new_address` (`created`), or those a scan found, with each scanned chain's count of known
   * addresses (`scanned`). Accepted only where they follow what is listed (see `continuesListing`).
   */
  | { readonly type: 'ADD_HD_ADDRESSES'; readonly accountIndex: number; readonly created: HdAddressRead }
  | {
      readonly type: 'ADD_HD_ADDRESSES';
      readonly accountIndex: number;
      readonly scanned: readonly { readonly chain: 'External' | 'Internal'; readonly knownAddresses: number; readonly found: readonly HdAddressRead[] }[];
    };

/** The machine's output is its final coin, if any (it has no final state today). */
export type CoinActivationOutput = ActivatedCoin | null;
