import { createActor, fromPromise, getInitialSnapshot, type Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import type { EventLog } from '../events/log/eventLog.ts';
import { coinActivationMachine, heldTokens, type CoinActivationEvent } from '../machines/coinActivation.machine.ts';
import type { ActivatedCoin, ActivationPlan, SettingChange } from '../machines/activation.types.ts';
import {
  alreadyActivated,
  type ActivateOptions,
  type ActivationRequest,
  type CoinView,
  type FamilyRouter,
  type GasPriceRefreshOptions,
  type PlanRequest,
  type Reservation,
  type TokenActivation,
  type TokenRequest,
} from './coinRequests.ts';
import { activationOutcome, tokenOutcome, type Activation } from './activationOutcome.ts';
import { CoinEventWriter } from './coinEventWriter.ts';
import { GasPriceRefreshers } from './gasPriceRefreshers.ts';
import { BalanceWatchers, type WatchedValue } from './balanceWatchers.ts';
import type { Clock } from '../kernel/clock.ts';
import { withActivationProgress } from './ports/activationProgress.ts';
import { progressRecorder } from './progressRecorder.ts';

type CoinMachine = typeof coinActivationMachine;
type CoinActor = Actor<CoinMachine>;

/** The holder an unreserved request asks with: no reservation ever has it. */
const NO_HOLDER = '';

const sameTokens = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * Owns one `coinActivation` actor per coin activated on its own (a platform, a UTXO coin, an ERC20
 * through legacy `enable`) for this session, and with it the rule "one coin, one activation"
 * (docs/compatibility.md §12): the check and the ACTIVATE command happen in the same synchronous
 * step, so of two concurrent requests exactly one proceeds. Every event an actor emits is appended
 * to the log; a command's promise settles only after its events are durable.
 */
export class CoinRegistry {
  readonly #actors = new Map<string, CoinActor>();
  readonly #events: CoinEventWriter;
  readonly #machine: CoinMachine;
  readonly #gasPrices: GasPriceRefreshers | undefined;
  readonly #balances: BalanceWatchers | undefined;
  /** The task of each coin's current activation (for its progress events). */
  readonly #taskOf = new Map<string, number | undefined>();
  #reservations = 0;
  #stopped = false;

  /**
   * `families` runs the chain work of every coin actor (handed over by the composition root); with
   * `gasPrices`, an active coin's gas station is refreshed while it stays active; with
   * `balanceWatch` (the clock), an active coin's balances are watched on its node (issue 24).
   */
  constructor(deps: { log: EventLog; families: FamilyRouter; gasPrices?: GasPriceRefreshOptions; balanceWatch?: { readonly clock: Clock } }) {
    this.#events = new CoinEventWriter(deps.log);
    const { families, gasPrices, balanceWatch } = deps;
    this.#balances =
      balanceWatch === undefined
        ? undefined
        : new BalanceWatchers({
            clock: balanceWatch.clock,
            watchOf: (coin) => families.balanceWatch?.(coin),
            append: (ticker, event) => this.#events.append(ticker, event),
            afterDurable: (ticker) => this.#events.afterDurable(ticker, Promise.resolve()),
          });
    this.#gasPrices =
      gasPrices === undefined
        ? undefined
        : new GasPriceRefreshers({
            ...gasPrices,
            feedOf: (coin) => families.gasPriceFeed?.(coin),
            append: (ticker, event) => this.#events.append(ticker, event),
          });
    const readToken = families.readToken?.bind(families);
    this.#machine = coinActivationMachine.provide({
      actors: {
        activateCoin: fromPromise(({ input, signal }) => this.#chainWork(families, input, signal)),
        activateToken: fromPromise(async ({ input, signal }) => {
          if (readToken === undefined) throw new ActivationError(ErrorType.InternalError, 'no family reads tokens');
          return readToken(input.platform, input.token, signal);
        }),
      },
    });
  }

  /**
   * The one admission point of every activation: throws `PlatformIsAlreadyActivated`, worded for
   * the request's form and naming the coin, unless the request's coin and every token it lists are
   * free. A coin is taken when its own machine refuses it (activating, active, passive unless a v2
   * platform form re-activates it, reserved by another task) or when another platform holds it as
   * a token ({@link heldTokens}: enabled, requested in flight, or reserved). A token the request's
   * own platform holds (kept by a passive platform, reserved by this task) stays free for it.
   * Nothing here reads the request beyond tickers: it comes before every other check.
   */
  assertCanActivate(request: ActivationRequest, reservation?: Reservation): void {
    const { ticker, via, tokens } = request;
    const holder = reservation?.holder ?? NO_HOLDER;
    const holders = this.#tokenHolders();
    const taken = (coin: string, asTokenOf?: string): boolean => {
      const platform = holders.get(coin);
      if (platform !== undefined && platform !== asTokenOf) return true;
      const ask = { type: 'RESERVE', holder, via, ...(asTokenOf === undefined ? {} : { asTokenOf }) } as const;
      return !this.#snapshot(coin).can(ask);
    };
    if (taken(ticker)) throw alreadyActivated(ticker, via);
    const token = tokens.find((t) => taken(t, ticker));
    if (token !== undefined) throw alreadyActivated(token, via);
  }

  /**
   * Reserves the request's coin and its tokens for a task (synchronously, after the same admission
   * as `activate`), until the returned reservation is released.
   */
  reserve(request: ActivationRequest): Reservation {
    this.#assertRunning();
    this.assertCanActivate(request);
    const { ticker, via, tokens } = request;
    const holder = `reservation-${++this.#reservations}`;
    const actor = this.#actorFor(ticker);
    actor.send({ type: 'RESERVE', holder, via, tokens: [...tokens] });
    const release = () => {
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'RELEASE', holder });
    };
    return { ticker, holder, release };
  }

  /**
   * Admits the request, builds its plan (a `PlanRequest`) and starts the activation; resolves once
   * `CoinActivated` is durable. Admission and planning errors are thrown synchronously.
   */
  activate(request: ActivationPlan | PlanRequest, options: ActivateOptions = {}): Promise<Activation> {
    this.#assertRunning();
    this.assertCanActivate(request, options.reservation);
    const plan = 'plan' in request ? request.plan() : request;
    // Admitted for the request's coin, form and tokens: a plan for anything else is a bug.
    if (plan.ticker !== request.ticker || plan.via !== request.via || !sameTokens(plan.tokens, request.tokens)) {
      throw new ActivationError(ErrorType.InternalError, `the plan of ${plan.ticker} does not match its request`);
    }
    const actor = this.#actorFor(plan.ticker);
    const holder = options.reservation?.holder;
    this.#taskOf.set(plan.ticker, options.taskId);
    actor.send({ type: 'ACTIVATE', plan, ...(holder === undefined ? {} : { holder }) });
    // The machine accepts exactly what admission asked it about: a refusal here would be a bug, and
    // without this check its request would wait for an attempt that never starts.
    if (!actor.getSnapshot().matches('activating')) {
      throw new ActivationError(ErrorType.InternalError, `the activation of ${plan.ticker} did not start`);
    }
    const outcome = activationOutcome(actor, actor.getSnapshot().context.attempt, plan, options.onChainRead);
    return this.#events.afterDurable(plan.ticker, outcome);
  }

  /**
   * Adds a token to its active platform (`enable_erc20`): the same admission as `activate` (the
   * token must be free everywhere), then its plan, then `ADD_TOKEN` on the platform's machine, all
   * in one synchronous step; resolves once `TokenActivated` is durable.
   */
  addToken(request: TokenRequest): Promise<TokenActivation> {
    this.#assertRunning();
    this.assertCanActivate({ ticker: request.ticker, via: request.via, tokens: [] });
    const token = request.plan();
    const actor = this.#actors.get(token.platform);
    if (token.ticker !== request.ticker || actor === undefined) {
      throw new ActivationError(ErrorType.InternalError, `the plan of token ${request.ticker} does not match its request`);
    }
    actor.send({ type: 'ADD_TOKEN', token });
    // The plan checked the platform is active and admission that the token is free: a refusal is a bug.
    if (!actor.getSnapshot().context.addingTokens.some((t) => t.ticker === token.ticker)) {
      throw new ActivationError(ErrorType.InternalError, `the activation of token ${token.ticker} did not start`);
    }
    return this.#events.afterDurable(token.platform, tokenOutcome(actor, token));
  }

  /** Aborts an in-flight activation (its chain calls are aborted); false if none was running. */
  async cancel(ticker: string): Promise<boolean> {
    const actor = this.#actors.get(ticker);
    if (!actor?.getSnapshot().matches('activating')) return false;
    actor.send({ type: 'CANCEL' });
    await this.#events.afterDurable(ticker, Promise.resolve());
    return true;
  }

  /**
   * Disables an enabled platform. With active tokens and no `force` it becomes passive instead
   * (docs/compatibility.md §10). Resolves with whether it was passivated and the tokens disabled with it.
   */
  async disable(ticker: string, force: boolean): Promise<{ passivized: boolean; tokens: string[] }> {
    const actor = this.#actors.get(ticker);
    const before = actor?.getSnapshot();
    if (!actor || !before || !(before.matches('active') || before.matches('passive'))) {
      throw new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${ticker}`, ticker);
    }
    const tokens = before.context.coin?.tokens.map((t) => t.ticker) ?? [];
    actor.send({ type: 'DISABLE', force });
    await this.#events.afterDurable(ticker, Promise.resolve());
    const passivized = actor.getSnapshot().matches('passive');
    return { passivized, tokens: passivized ? [] : tokens };
  }

  /** Disables one token of an enabled platform; `NoSuchCoin` when that token is not enabled there. */
  async disableToken(platform: string, token: string): Promise<void> {
    const actor = this.#actors.get(platform);
    const command = { type: 'DISABLE_TOKEN', ticker: token } as const;
    if (!actor?.getSnapshot().can(command)) {
      throw new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${token}`, token);
    }
    actor.send(command);
    await this.#events.afterDurable(platform, Promise.resolve());
  }

  /**
   * Changes a setting of `ticker`, on the machine of `owner` (the coin itself, or the platform of a
   * token): resolves once its event is durable. False, changing nothing, when that machine does not
   * accept it (the coin is not available: see the machine's `CHANGE_SETTING`).
   */
  async changeSetting(owner: string, ticker: string, change: SettingChange): Promise<boolean> {
    this.#assertRunning();
    const actor = this.#actors.get(owner);
    const command = { type: 'CHANGE_SETTING', ticker, change } as const;
    if (!actor?.getSnapshot().can(command)) return false;
    actor.send(command);
    await this.#events.afterDurable(owner, Promise.resolve());
    return true;
  }

  /**
   * Adds addresses to an active coin's HD account (`get_new_address`, `scan_for_new_addresses`):
   * resolves once their events are durable. The machine takes them only where they continue its
   * listing; anything else (the coin no longer active, the listing moved on) is an error to ask again.
   */
  async addHdAddresses(ticker: string, command: Extract<CoinActivationEvent, { type: 'ADD_HD_ADDRESSES' }>): Promise<void> {
    this.#assertRunning();
    const actor = this.#actors.get(ticker);
    if (!actor?.getSnapshot().can(command)) {
      throw new ActivationError(ErrorType.InternalError, `the HD account of ${ticker} changed while its addresses were read: ask again`);
    }
    actor.send(command);
    await this.#events.afterDurable(ticker, Promise.resolve());
  }

  /** The state of a platform coin (inactive when never seen this session). */
  view(ticker: string): CoinView {
    const snapshot = this.#actors.get(ticker)?.getSnapshot();
    if (!snapshot) return { ticker, state: 'inactive', coin: null, hardwareKey: false };
    const { coin, plan } = snapshot.context;
    return { ticker, state: snapshot.value as CoinView['state'], coin, hardwareKey: plan?.key !== undefined || plan?.deviceAccount !== undefined };
  }

  /** How many active coins have their gas station refreshed. */
  get gasPriceRefreshes(): number {
    return this.#gasPrices?.size ?? 0;
  }

  /** How many nodes have their balances watched. */
  get balanceWatchers(): number {
    return this.#balances?.size ?? 0;
  }

  /**
   * The watched balance of `ticker` (the platform `platform` or one of its tokens) at `address`,
   * when its node is watched (issue 24), and whether it is fresh (read within one poll interval).
   */
  watchedBalance(platform: string, ticker: string, address: string): WatchedValue | undefined {
    return this.#balances?.watched(platform, ticker, address);
  }

  /** {@link watchedBalance}, waiting for its watcher's step in flight when the value is not fresh ({@link BalanceWatchers.current}). */
  currentBalance(platform: string, ticker: string, address: string, signal: AbortSignal): Promise<WatchedValue | undefined> {
    return this.#balances?.current(platform, ticker, address, signal) ?? Promise.resolve(undefined);
  }

  /** Every platform that is active or passive, with its coin. */
  enabled(): CoinView[] {
    return [...this.#actors.keys()].map((t) => this.view(t)).filter((v) => v.state === 'active' || v.state === 'passive');
  }

  /** Stops every actor (aborting in-flight chain work) and waits for pending event writes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#gasPrices?.stopAll();
    this.#balances?.stopAll();
    for (const actor of this.#actors.values()) actor.stop();
    await this.#events.flush();
  }

  /**
   * The chain work of an attempt, with its progress (node attempts, tokens read, HD windows)
   * recorded on the coin's stream until the work settles.
   */
  #chainWork(families: FamilyRouter, plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
    const ticker = plan.ticker;
    const recorder = progressRecorder(
      { ticker, family: plan.family, attempt: () => this.#actors.get(ticker)?.getSnapshot().context.attempt ?? 0, taskId: this.#taskOf.get(ticker) },
      (event) => this.#events.appendSoon(ticker, event),
    );
    return withActivationProgress(recorder, () => families.activate(plan, signal)).finally(() => recorder.close());
  }

  #assertRunning(): void {
    if (this.#stopped) throw new ActivationError(ErrorType.InternalError, 'the service is stopping');
  }

  /** The coin's machine state; a coin never seen this session is asked without making an actor. */
  #snapshot(ticker: string) {
    return this.#actors.get(ticker)?.getSnapshot() ?? getInitialSnapshot(this.#machine, { ticker });
  }

  /** Every token some coin holds ({@link heldTokens}), with that coin's ticker. */
  #tokenHolders(): Map<string, string> {
    const holders = new Map<string, string>();
    for (const [ticker, actor] of this.#actors) for (const token of heldTokens(actor.getSnapshot())) holders.set(token, ticker);
    return holders;
  }

  #actorFor(ticker: string): CoinActor {
    const existing = this.#actors.get(ticker);
    if (existing) return existing;
    const actor = createActor(this.#machine, { input: { ticker } });
    actor.on('*', (event) => this.#events.append(ticker, event as DomainEvent));
    // After the transition's events: a refresh's first event follows its coin's CoinActivated.
    // A passive platform is kept for its tokens, which pay gas in it: its station keeps being read.
    actor.subscribe((snapshot) => {
      const enabled = snapshot.matches('active') || snapshot.matches('passive');
      this.#gasPrices?.follow(ticker, snapshot.context.attempt, enabled ? snapshot.context.coin : null);
      // Balances are watched while the coin is active only: a passive platform's node is let go.
      this.#balances?.follow(ticker, snapshot.context.attempt, snapshot.matches('active') ? snapshot.context.coin : null);
    });
    actor.start();
    this.#actors.set(ticker, actor);
    return actor;
  }
}
