import { createActor, fromPromise, type Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import { coinStream, type EventLog } from '../events/log/eventLog.ts';
import { coinActivationMachine } from '../machines/coinActivation.machine.ts';
import type { ActivatedCoin, ActivationPlan } from '../machines/activation.types.ts';

type CoinActor = Actor<typeof coinActivationMachine>;

/** Runs the chain work of a plan; must stop when `signal` aborts. */
export type ActivateCoin = (plan: ActivationPlan, signal: AbortSignal) => Promise<ActivatedCoin>;

/** A coin as the registry sees it: its state and, when enabled, what activation learned. */
export interface CoinView {
  readonly ticker: string;
  readonly state: 'inactive' | 'activating' | 'active' | 'passive';
  readonly coin: ActivatedCoin | null;
  /** Number of the latest accepted activation (0: none this session). */
  readonly attempt: number;
}

/** Held by a task from `init` until it ends, so nothing else activates its coin meanwhile. */
export interface Reservation {
  readonly ticker: string;
  release(): void;
}

export interface ActivateOptions {
  /** The caller's reservation of the ticker (tasks); without one a reserved ticker is refused. */
  readonly reservation?: Reservation;
  /** Called when the chain work is done, before the outcome is durable. */
  readonly onChainRead?: () => void;
}

/**
 * Owns one `coinActivation` actor per platform ticker for this session, and with it the rule
 * "one activation per coin per session": the check and the ACTIVATE command happen in the same
 * synchronous step, so of two concurrent requests exactly one proceeds. Every event an actor emits
 * is appended to the log; a command's promise settles only after its events are durable.
 */
export class CoinRegistry {
  readonly #actors = new Map<string, CoinActor>();
  readonly #lastWrite = new Map<string, Promise<unknown>>();
  readonly #log: EventLog;
  readonly #activateCoin: ActivateCoin;
  readonly #reserved = new Map<string, Reservation>();
  #stopped = false;

  constructor(deps: { log: EventLog; activateCoin: ActivateCoin }) {
    this.#log = deps.log;
    this.#activateCoin = deps.activateCoin;
  }

  /**
   * Throws `PlatformIsAlreadyActivated` unless `ticker` may start an activation now: it is neither
   * activating, active, nor reserved by a running task (other than the holder of `reservation`).
   */
  assertCanActivate(ticker: string, reservation?: Reservation): void {
    const state = this.view(ticker).state;
    const reservedByOther = this.#reserved.has(ticker) && this.#reserved.get(ticker) !== reservation;
    if (state === 'activating' || state === 'active' || reservedByOther) {
      throw new ActivationError(ErrorType.PlatformIsAlreadyActivated, ticker, ticker);
    }
  }

  /** Reserves `ticker` for a task (synchronously, after the same check as `activate`). */
  reserve(ticker: string): Reservation {
    if (this.#stopped) throw new ActivationError(ErrorType.InternalError, 'the service is stopping');
    this.assertCanActivate(ticker);
    const reservation: Reservation = {
      ticker,
      release: () => {
        if (this.#reserved.get(ticker) === reservation) this.#reserved.delete(ticker);
      },
    };
    this.#reserved.set(ticker, reservation);
    return reservation;
  }

  /** Starts the activation of `plan` and resolves with the coin once `CoinActivated` is durable. */
  activate(plan: ActivationPlan, options: ActivateOptions = {}): Promise<ActivatedCoin> {
    if (this.#stopped) throw new ActivationError(ErrorType.InternalError, 'the service is stopping');
    this.assertCanActivate(plan.ticker, options.reservation);
    const actor = this.#actorFor(plan.ticker);
    actor.send({ type: 'ACTIVATE', plan });
    const attempt = actor.getSnapshot().context.attempt;
    const settled = new Promise<ActivatedCoin>((resolve, reject) => {
      // Stopping the actor (service shutdown) aborts the chain work and leaves it in `activating`:
      // settle then too, or the request would wait forever.
      const stopped = () => new ActivationError(ErrorType.InternalError, `activation of ${plan.ticker} was abandoned: the service is stopping`);
      const sub = actor.subscribe({
        next: (snapshot) => {
          if (snapshot.status === 'stopped') {
            sub.unsubscribe();
            reject(stopped());
            return;
          }
          if (snapshot.context.attempt !== attempt || snapshot.matches('activating')) return;
          sub.unsubscribe();
          const { coin, lastError } = snapshot.context;
          if (snapshot.matches('active') && coin !== null) {
            options.onChainRead?.();
            resolve({ ...coin, tokens: coin.tokens.filter((t) => plan.tokens.includes(t.ticker)) });
          } else {
            reject(lastError ?? new ActivationError(ErrorType.InternalError, `activation of ${plan.ticker} was cancelled`));
          }
        },
        complete: () => reject(stopped()),
      });
    });
    return this.#afterDurable(plan.ticker, settled);
  }

  /** Aborts an in-flight activation (its chain calls are aborted); false if none was running. */
  async cancel(ticker: string): Promise<boolean> {
    const actor = this.#actors.get(ticker);
    if (!actor?.getSnapshot().matches('activating')) return false;
    actor.send({ type: 'CANCEL' });
    await this.#afterDurable(ticker, Promise.resolve());
    return true;
  }

  /**
   * Disables an enabled platform. With active tokens and no `force` it becomes passive instead
   * (behaviour notes §10). Resolves with whether it was passivated and the tokens disabled with it.
   */
  async disable(ticker: string, force: boolean): Promise<{ passivized: boolean; tokens: string[] }> {
    const actor = this.#actors.get(ticker);
    const before = actor?.getSnapshot();
    if (!actor || !before || !(before.matches('active') || before.matches('passive'))) {
      throw new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${ticker}`, ticker);
    }
    const tokens = before.context.coin?.tokens.map((t) => t.ticker) ?? [];
    actor.send({ type: 'DISABLE', force });
    await this.#afterDurable(ticker, Promise.resolve());
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
    await this.#afterDurable(platform, Promise.resolve());
  }

  /** The state of a platform coin (inactive when never seen this session). */
  view(ticker: string): CoinView {
    const snapshot = this.#actors.get(ticker)?.getSnapshot();
    if (!snapshot) return { ticker, state: 'inactive', coin: null, attempt: 0 };
    return { ticker, state: snapshot.value as CoinView['state'], coin: snapshot.context.coin, attempt: snapshot.context.attempt };
  }

  /** Every platform that is active or passive, with its coin. */
  enabled(): CoinView[] {
    return [...this.#actors.keys()].map((t) => this.view(t)).filter((v) => v.state === 'active' || v.state === 'passive');
  }

  /** Stops every actor (aborting in-flight chain work) and waits for pending event writes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const actor of this.#actors.values()) actor.stop();
    await Promise.allSettled(this.#lastWrite.values());
  }

  #actorFor(ticker: string): CoinActor {
    const existing = this.#actors.get(ticker);
    if (existing) return existing;
    const activateCoin = this.#activateCoin;
    const machine = coinActivationMachine.provide({
      actors: { activateCoin: fromPromise(({ input, signal }) => activateCoin(input, signal)) },
    });
    const actor = createActor(machine, { input: { ticker } });
    actor.on('*', (event) => this.#persist(ticker, event as DomainEvent));
    actor.start();
    this.#actors.set(ticker, actor);
    return actor;
  }

  #persist(ticker: string, event: DomainEvent): void {
    const write = this.#log.append(coinStream(ticker), [event]);
    this.#lastWrite.set(ticker, write);
    write.catch(() => undefined); // observed by #afterDurable; a failed log is fail-stop
  }

  /** Settles like `outcome`, but only once every event emitted so far for `ticker` is durable. */
  async #afterDurable<T>(ticker: string, outcome: Promise<T>): Promise<T> {
    const result = await outcome.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    try {
      await this.#lastWrite.get(ticker);
    } catch (e) {
      throw new ActivationError(ErrorType.InternalError, `could not record the outcome: ${(e as Error).message}`);
    }
    if (!result.ok) throw result.error;
    return result.value;
  }
}
