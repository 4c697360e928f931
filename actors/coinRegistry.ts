import { createActor, fromPromise, getInitialSnapshot, type Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import type { EventLog } from '../events/log/eventLog.ts';
import { coinActivationMachine } from '../machines/coinActivation.machine.ts';
import { ActivationVia, isLegacyVia, type ActivatedCoin, type ActivationPlan } from '../machines/activation.types.ts';
import { activationOutcome, type Activation } from './activationOutcome.ts';
import { CoinEventWriter } from './coinEventWriter.ts';

type CoinMachine = typeof coinActivationMachine;
type CoinActor = Actor<CoinMachine>;

/** Runs the chain work of a plan; must stop when `signal` aborts. */
export type ActivateCoin = (plan: ActivationPlan, signal: AbortSignal) => Promise<ActivatedCoin>;

/** Routes a plan to its chain family's `activate` (`ChainFamilies` in production). */
export interface FamilyRouter {
  readonly activate: ActivateCoin;
}

/** A coin as the registry sees it: its state and, when enabled, what activation learned. */
export interface CoinView {
  readonly ticker: string;
  readonly state: 'inactive' | 'activating' | 'active' | 'passive';
  readonly coin: ActivatedCoin | null;
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
}

/**
 * A request whose plan is built only once the registry has admitted it, so "already activated"
 * comes before any check of the request (the reference's order). `plan` runs synchronously; if it
 * throws, nothing is registered.
 */
export interface PlanRequest {
  readonly ticker: string;
  readonly via: ActivationVia;
  plan(): ActivationPlan;
}

/** The holder an unreserved request asks with: no reservation ever has it. */
const NO_HOLDER = '';

/** "Already activated" in the request's form: v2 answers the bare ticker, legacy the sentence. */
function alreadyActivated(ticker: string, via: ActivationVia): ActivationError {
  const message = isLegacyVia(via) ? `Coin ${ticker} already initialized` : ticker;
  return new ActivationError(ErrorType.PlatformIsAlreadyActivated, message, ticker);
}

/**
 * Owns one `coinActivation` actor per platform ticker for this session, and with it the rule
 * "one activation per coin per session": the check and the ACTIVATE command happen in the same
 * synchronous step, so of two concurrent requests exactly one proceeds. Every event an actor emits
 * is appended to the log; a command's promise settles only after its events are durable.
 */
export class CoinRegistry {
  readonly #actors = new Map<string, CoinActor>();
  readonly #events: CoinEventWriter;
  readonly #machine: CoinMachine;
  #reservations = 0;
  #stopped = false;

  /** `families` runs the chain work of every coin actor (handed over by the composition root). */
  constructor(deps: { log: EventLog; families: FamilyRouter }) {
    this.#events = new CoinEventWriter(deps.log);
    const { families } = deps;
    this.#machine = coinActivationMachine.provide({
      actors: { activateCoin: fromPromise(({ input, signal }) => families.activate(input, signal)) },
    });
  }

  /**
   * The one admission point of every activation: throws `PlatformIsAlreadyActivated`, worded for
   * the request's form, unless `ticker` may start an activation now. The coin's machine decides
   * (activating, active, passive, held by another task's reservation); the registry adds the one
   * rule that spans coins: to a legacy request, a token enabled with its platform is initialized.
   * @param via the request's form; default `enable_eth_with_tokens` (v2).
   */
  assertCanActivate(ticker: string, via: ActivationVia = ActivationVia.EnableEthWithTokens, reservation?: Reservation): void {
    const holder = reservation?.holder ?? NO_HOLDER;
    const accepted = this.#snapshot(ticker).can({ type: 'RESERVE', holder, via });
    if (!accepted || (isLegacyVia(via) && this.#enabledAsToken(ticker))) throw alreadyActivated(ticker, via);
  }

  /** Reserves `ticker` for a task (synchronously, after the same admission as `activate`). */
  reserve(ticker: string, via: ActivationVia): Reservation {
    this.#assertRunning();
    this.assertCanActivate(ticker, via);
    const holder = `reservation-${++this.#reservations}`;
    const actor = this.#actorFor(ticker);
    actor.send({ type: 'RESERVE', holder, via });
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
    this.assertCanActivate(request.ticker, request.via, options.reservation);
    const plan = 'plan' in request ? request.plan() : request;
    const actor = this.#actorFor(plan.ticker);
    const holder = options.reservation?.holder;
    actor.send({ type: 'ACTIVATE', plan, ...(holder === undefined ? {} : { holder }) });
    // Admitted in this same synchronous step: only a plan unlike its request is refused here.
    if (!actor.getSnapshot().matches('activating')) {
      throw new ActivationError(ErrorType.InternalError, `the plan of ${plan.ticker} does not match its request`);
    }
    const outcome = activationOutcome(actor, actor.getSnapshot().context.attempt, plan, options.onChainRead);
    return this.#events.afterDurable(plan.ticker, outcome);
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

  /** The state of a platform coin (inactive when never seen this session). */
  view(ticker: string): CoinView {
    const snapshot = this.#actors.get(ticker)?.getSnapshot();
    if (!snapshot) return { ticker, state: 'inactive', coin: null };
    return { ticker, state: snapshot.value as CoinView['state'], coin: snapshot.context.coin };
  }

  /** Every platform that is active or passive, with its coin. */
  enabled(): CoinView[] {
    return [...this.#actors.keys()].map((t) => this.view(t)).filter((v) => v.state === 'active' || v.state === 'passive');
  }

  /** Stops every actor (aborting in-flight chain work) and waits for pending event writes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const actor of this.#actors.values()) actor.stop();
    await this.#events.flush();
  }

  #assertRunning(): void {
    if (this.#stopped) throw new ActivationError(ErrorType.InternalError, 'the service is stopping');
  }

  /** The coin's machine state; a coin never seen this session is asked without making an actor. */
  #snapshot(ticker: string) {
    return this.#actors.get(ticker)?.getSnapshot() ?? getInitialSnapshot(this.#machine, { ticker });
  }

  /** Whether `ticker` is a token enabled with some platform (active, passive or re-activating). */
  #enabledAsToken(ticker: string): boolean {
    return [...this.#actors.values()].some((a) => a.getSnapshot().context.coin?.tokens.some((t) => t.ticker === ticker));
  }

  #actorFor(ticker: string): CoinActor {
    const existing = this.#actors.get(ticker);
    if (existing) return existing;
    const actor = createActor(this.#machine, { input: { ticker } });
    actor.on('*', (event) => this.#events.append(ticker, event as DomainEvent));
    actor.start();
    this.#actors.set(ticker, actor);
    return actor;
  }
}
