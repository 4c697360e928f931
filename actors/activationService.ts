import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { EnabledCoin, EnabledCoinsProjection } from '../events/projections/enabledCoins.ts';
import type { ActivatedCoin, ActivatedToken, ActivationPlan, Balance } from '../machines/activation.types.ts';
import type { DeviceRead } from '../machines/activationTask.machine.ts';
import {
  CommandKind,
  type ActivationCommand,
  type ElectrumActivationCommand,
  type EnableActivationCommand,
  type PlatformActivationCommand,
} from './ports/chainFamily.ts';
import type { CoinRegistry } from './coinRegistry.ts';
import type { ActivationRequest, TokenActivation } from './coinRequests.ts';
import { planTokenActivation, type TokenActivationCommand } from './tokenPlan.ts';
import { ActivationVia } from '../machines/activation.types.ts';
import type { Activation } from './activationOutcome.ts';
import type { ChainFamilies } from './chainFamilies.ts';
import { ALL_CHAINS, readAccountPage, summarizeAccountPage, type AccountPage, type AccountPageRequest } from './accountBalance.ts';
import type { Bip44Chain } from '../spec/accountBalance.ts';
import type { AccountBalanceRead, NewAddressRead, ScannedAddressesRead } from '../spec/events.ts';
import { HdAddressOperations } from './hdAddressOperations.ts';

/** The account balance methods' `NoSuchCoin` (400, `{coin}`), as the reference's `HDAccountBalanceRpcError`. */
const noSuchCoin = (ticker: string) => new ActivationError(ErrorType.NoSuchCoin, `No such coin ${ticker}`, { coin: ticker }, { httpStatus: 400 });
import { ActivationPlanner, type HdWallet } from './activationPlanner.ts';

export type { HdWallet };

/** What admission reads of a platform-with-tokens command: its coin, form and token tickers. */
export function platformRequest(command: PlatformActivationCommand): ActivationRequest {
  return { ticker: command.ticker, via: command.via, tokens: command.tokens.map((t) => t.ticker) };
}

/** What admission reads of any command: a platform's tokens, none for a coin on its own. */
export function activationRequest(command: ActivationCommand): ActivationRequest {
  return command.kind === CommandKind.Platform ? platformRequest(command) : { ticker: command.ticker, via: command.via, tokens: [] };
}

export interface DisableOutcome {
  readonly coin: string;
  readonly passivized: boolean;
}

/**
 * The application layer behind the RPC adapter: turns domain commands into actor commands and
 * answers queries from projections. Knows nothing of wire shapes.
 *
 * The path of one activation request (`enable_eth_with_tokens` on an EVM platform):
 * rpc/ builds the command → `enablePlatformWithTokens` → `CoinRegistry.activate`: admission (the
 * coin's machine, `assertCanActivate`), then `ActivationPlanner.planPlatform` → the family's `plan`
 * (`infra/evm/evmPlan.ts`, which runs the shared checks of `platformPlan.ts`), then ACTIVATE →
 * the machine invokes the family router (`ChainFamilies.activate`) → `infra/evm/evmFamily.ts`
 * reads the chain and builds the coin with `platformRead.ts` (HD: `hdActivation.ts` scans through
 * the family's reads) → the machine summarizes it once into `CoinActivated` → the registry
 * answers with coin and summary once that event is durable → rpc/ renders the summary.
 */
export class ActivationService {
  readonly #planner: ActivationPlanner;
  readonly #families: ChainFamilies;
  readonly #registry: CoinRegistry;
  readonly #enabledCoins: EnabledCoinsProjection;
  readonly #coins: CoinsCatalog;
  readonly #hdAddresses: HdAddressOperations;

  constructor(deps: {
    coins: CoinsCatalog;
    families: ChainFamilies;
    registry: CoinRegistry;
    enabledCoins: EnabledCoinsProjection;
    /** Set in HD mode: the wallet's id and the address counts earlier activations recorded. */
    hd?: HdWallet;
    /** The address counts recorded for every wallet, a device's included (see {@link ActivationPlanner}). */
    recordedAddresses?: HdWallet['known'];
    /** MM2.json `use_trading_proto_v2`: EVM trading coins then need `swap_v2_contracts`. @default false */
    useTradingProtoV2?: boolean;
  }) {
    const { coins, families, hd, recordedAddresses, useTradingProtoV2 } = deps;
    this.#planner = new ActivationPlanner({ coins, families, hd, recordedAddresses, ...(useTradingProtoV2 === undefined ? {} : { useTradingProtoV2 }) });
    this.#families = deps.families;
    this.#registry = deps.registry;
    this.#enabledCoins = deps.enabledCoins;
    this.#coins = coins;
    this.#hdAddresses = new HdAddressOperations({ registry: this.#registry, find: (ticker) => this.#answeringCoin(ticker), noSuchCoin });
  }

  /**
   * Adds a token to its active platform (`enable_erc20`): admitted as any activation (one coin, one
   * activation), then the token's checks (`tokenPlan.ts`), then the platform's machine reads it.
   */
  enableToken(command: TokenActivationCommand): Promise<TokenActivation> {
    const deps = { coins: this.#coins, families: this.#families, platformOf: (ticker: string) => this.#registry.view(ticker) };
    return this.#registry.addToken({ ticker: command.ticker, via: ActivationVia.EnableErc20, plan: () => planTokenActivation(command, deps) });
  }

  /**
   * Activates a platform with its tokens (`enable_eth_with_tokens`). Checks run in the reference's
   * order (admission, then planning), synchronously up to the chain work, so a bad request
   * registers nothing.
   */
  enablePlatformWithTokens(command: PlatformActivationCommand): Promise<Activation> {
    return this.#registry.activate({ ...platformRequest(command), plan: () => this.planPlatform(command) });
  }

  /**
   * Refuses at once, worded for the request's form, a request whose coin or tokens are already
   * activated (the registry's one rule), so that answer comes before any check of the request's
   * other fields, even their shape. Starting the activation checks again, atomically.
   */
  assertCanActivate(request: ActivationRequest): void {
    this.#registry.assertCanActivate(request);
  }

  /** What a hardware task reads from the device (see {@link ActivationPlanner.hardwareRead}). */
  hardwareRead(plan: ActivationPlan): DeviceRead {
    return this.#planner.hardwareRead(plan);
  }

  /** A device account's plan with its scan, once the device gave the node (see {@link ActivationPlanner.withDeviceAccount}). */
  withDeviceAccount(plan: ActivationPlan): ActivationPlan {
    return this.#planner.withDeviceAccount(plan);
  }

  /** The checks of a platform-with-tokens command (see {@link ActivationPlanner.planPlatform}). */
  planPlatform(command: PlatformActivationCommand): ActivationPlan {
    return this.#planner.planPlatform(command);
  }

  /**
   * Legacy `electrum` (spec 4.6): once admitted, the legacy checks (docs/compatibility.md §9),
   * then the family that serves the coin's protocol over Electrum plans it.
   */
  enableElectrum(command: ElectrumActivationCommand, requestMm2: number | undefined): Promise<Activation> {
    const { ticker, via } = command;
    return this.#registry.activate({ ticker, via, tokens: [], plan: () => this.plan(command, requestMm2) });
  }

  /**
   * Legacy `enable` (spec 4.7): once admitted, the legacy checks (docs/compatibility.md §9; TRON
   * is refused there, as it activates through the v2 methods only), then the family serving the
   * protocol natively (UTXO daemon) or over `urls` (EVM) plans it.
   */
  enableLegacy(command: EnableActivationCommand, requestMm2: number | undefined): Promise<Activation> {
    const { ticker, via } = command;
    return this.#registry.activate({ ticker, via, tokens: [], plan: () => this.plan(command, requestMm2) });
  }

  /**
   * The checks an activation runs once admitted, without activating or registering anything.
   * @param requestMm2 legacy requests only: the request's own `mm2`.
   */
  plan(command: ActivationCommand, requestMm2?: number): ActivationPlan {
    return this.#planner.plan(command, requestMm2);
  }

  /** Enabled coins of this session (platforms, passive ones included, and tokens). */
  enabledCoins(): EnabledCoin[] {
    return this.#enabledCoins.list();
  }

  /** Disables a coin: a token alone, or a platform (passive while tokens remain, unless `force`). */
  async disableCoin(ticker: string, force: boolean): Promise<DisableOutcome> {
    const enabled = this.#enabledCoins.find(ticker);
    if (enabled?.platform !== undefined) {
      const platform = this.#registry.view(enabled.platform).coin;
      await this.#registry.disableToken(enabled.platform, ticker);
      // A passive platform goes with its last token: let go of what it held open too.
      if (platform !== null && this.#registry.view(enabled.platform).state === 'inactive') this.#families.release(platform);
      return { coin: ticker, passivized: false };
    }
    const coin = this.#registry.view(ticker).coin;
    const { passivized } = await this.#registry.disable(ticker, force);
    if (!passivized && coin !== null) this.#families.release(coin);
    return { coin: ticker, passivized };
  }

  /**
   * Live balance of an enabled coin or token, with its address and decimals: the watched value when
   * its node's watcher confirmed it within one poll interval, else read from the node. A passive
   * platform is hidden, but its tokens still answer (docs/compatibility.md §10), also while it re-activates.
   */
  async balance(ticker: string, signal: AbortSignal): Promise<{ address: string; decimals: number; balance: Balance }> {
    const found = this.#answeringCoin(ticker);
    if (found === undefined) throw new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${ticker}`, ticker);
    const { coin, token } = found;
    const decimals = token === undefined ? coin.decimals : token.decimals;
    // A balance its node's watcher read within one poll interval is the node's answer now (issue 24);
    // while the watcher is asking the node, its answer is awaited rather than asked for twice.
    const watched = await this.#registry.currentBalance(coin.ticker, ticker, coin.address, signal);
    if (watched?.fresh === true) return { address: coin.address, decimals, balance: watched.balance };
    return { address: coin.address, decimals, balance: await this.#families.balance(coin, ticker, signal) };
  }

  /**
   * A page of an enabled platform's HD account (`account_balance`): from the watchers when they
   * hold every value of it confirmed within one poll interval, else one read through its family.
   */
  async accountBalance(ticker: string, request: AccountPageRequest, signal: AbortSignal): Promise<AccountPage> {
    const found = this.#answeringCoin(ticker);
    if (found === undefined) throw noSuchCoin(ticker);
    // A token answers with its own balances on its platform's account.
    return readAccountPage(found.coin, { ...request, ...(found.token === undefined ? {} : { only: ticker }) }, {
      watched: (platform, t, address) => this.#registry.watchedBalance(platform, t, address),
      read: (coin, balances, s) => this.#families.readBalances(coin, balances, s),
    }, signal);
  }

  /** Every listed address of the HD account (`task::account_balance`), as its task records it. */
  async accountBalanceRead(ticker: string, accountIndex: number, signal: AbortSignal): Promise<AccountBalanceRead> {
    const page = await this.accountBalance(ticker, { accountIndex, chain: ALL_CHAINS, limit: Number.MAX_SAFE_INTEGER }, signal);
    return summarizeAccountPage(page);
  }

  /**
   * Hands out the next address of an enabled coin's HD account chain (`get_new_address`,
   * docs/compatibility.md §24; see {@link HdAddressOperations.newAddress}).
   */
  newAddress(ticker: string, request: { accountIndex: number; chain: Bip44Chain; gapLimit?: number }, signal: AbortSignal): Promise<NewAddressRead> {
    return this.#hdAddresses.newAddress(ticker, request, signal);
  }

  /** Scans an enabled coin's HD account beyond its listed addresses (`task::scan_for_new_addresses`; see {@link HdAddressOperations.scan}). */
  scanForNewAddresses(ticker: string, request: { accountIndex: number; gapLimit?: number }, signal: AbortSignal): Promise<ScannedAddressesRead> {
    return this.#hdAddresses.scan(ticker, request, signal);
  }

  /** Refuses a coin whose balance `my_balance` would not answer (`NoSuchCoin {coin}`, the reference's `HDAccountBalanceRpcError`). */
  assertBalanceAnswered(ticker: string): void {
    if (this.#answeringCoin(ticker) === undefined) throw noSuchCoin(ticker);
  }

  /**
   * Whether the balance of an enabled coin or token, as `my_balance` finds it (a passive platform
   * hides, its tokens answer), is watched now (issue 24); `undefined` when it is not enabled.
   */
  balanceWatched(ticker: string): boolean | undefined {
    const found = this.#answeringCoin(ticker);
    if (found === undefined) return undefined;
    return this.#registry.watchedBalance(found.coin.ticker, ticker, found.coin.address) !== undefined;
  }

  /**
   * The enabled coin that answers for `ticker` (itself, or the platform of a token), the token, and
   * whether the platform's key is a hardware device's; `undefined`: no such coin (withdrawals).
   */
  enabledCoin(ticker: string): { coin: ActivatedCoin; token: ActivatedToken | undefined; hardwareKey: boolean } | undefined {
    const found = this.#answeringCoin(ticker);
    return found === undefined ? undefined : { ...found, hardwareKey: this.#registry.view(found.coin.ticker).hardwareKey };
  }

  /** The enabled coin that answers for `ticker` (itself, or the platform of a token) and the token; `undefined`: no such coin. */
  #answeringCoin(ticker: string): { coin: ActivatedCoin; token: ActivatedToken | undefined } | undefined {
    const enabled = this.#enabledCoins.find(ticker);
    const platform = this.#registry.view(enabled?.platform ?? ticker);
    const coin = platform.coin;
    const token = enabled?.platform === undefined ? undefined : coin?.tokens.find((t) => t.ticker === ticker);
    const answers = enabled?.platform === undefined ? platform.state === 'active' : token !== undefined;
    return enabled === undefined || coin === null || !answers ? undefined : { coin, token };
  }

  /** Lets every enabled coin's family release what it holds open (at stop). */
  releaseAll(): void {
    for (const { coin } of this.#registry.enabled()) if (coin !== null) this.#families.release(coin);
  }
}
