import { createActor, fromPromise, type Actor } from 'xstate';
import type { DomainEvent } from '../spec/events.ts';
import type { Clock } from '../kernel/clock.ts';
import type { ActivatedCoin } from '../machines/activation.types.ts';
import { gasPriceRefreshMachine, type GasPriceRead } from '../machines/gasPriceRefresh.machine.ts';
import type { GasPriceFeed } from './ports/chainFamily.ts';
import { xstateClock } from './xstateClock.ts';

export interface GasPriceRefreshersDeps {
  readonly clock: Clock;
  /** Time between two reads of a station (MM2.json `gas_station_refresh_s`, @default 60 s). */
  readonly intervalMs: number;
  /** The gas station of a coin, if its activation had one (the family router's `gasPriceFeed`). */
  readonly feedOf: (coin: ActivatedCoin) => GasPriceFeed | undefined;
  /** Records what a refresh emits on the coin's stream, in order with the coin's own events. */
  readonly append: (ticker: string, event: DomainEvent) => void;
}

interface Running {
  /** The activation attempt whose price this refresh keeps. */
  readonly attempt: number;
  readonly actor: Actor<typeof gasPriceRefreshMachine>;
}

/**
 * One `gasPriceRefresh` actor per enabled coin that has a gas station, for exactly as long as the
 * coin is active or passive (a platform kept for its tokens, which pay gas in it): the registry reports each coin's state after every transition ({@link follow}),
 * so disabling, becoming passive and re-activating stop or replace it, and {@link stopAll} (the
 * service stopping) stops them all. A stopped refresh leaves no timer and no read behind.
 */
export class GasPriceRefreshers {
  readonly #deps: GasPriceRefreshersDeps;
  readonly #clock: ReturnType<typeof xstateClock>;
  readonly #running = new Map<string, Running>();

  constructor(deps: GasPriceRefreshersDeps) {
    this.#deps = deps;
    this.#clock = xstateClock(deps.clock);
  }

  /**
   * The coin's state after a transition: active or passive with the coin of activation `attempt`,
   * or neither (`coin` null). Starts a refresh for a newly enabled coin with a station, keeps the one of the
   * same activation (a token disabled, say), stops it otherwise.
   */
  follow(ticker: string, attempt: number, coin: ActivatedCoin | null): void {
    const running = this.#running.get(ticker);
    if (coin !== null && running?.attempt === attempt) return;
    if (running !== undefined) this.stop(ticker);
    const feed = coin === null ? undefined : this.#deps.feedOf(coin);
    if (feed !== undefined) this.#start(ticker, attempt, feed);
  }

  /** Stops the coin's refresh, if any. */
  stop(ticker: string): void {
    this.#running.get(ticker)?.actor.stop();
    this.#running.delete(ticker);
  }

  /** Stops every refresh (the service stopping). */
  stopAll(): void {
    for (const ticker of [...this.#running.keys()]) this.stop(ticker);
  }

  /** How many coins have a refresh running. */
  get size(): number {
    return this.#running.size;
  }

  #start(ticker: string, attempt: number, feed: GasPriceFeed): void {
    const machine = gasPriceRefreshMachine.provide({
      actors: { readGasPrice: fromPromise<GasPriceRead, { ticker: string }>(({ signal }) => this.#read(feed, signal)) },
    });
    const input = { ticker, intervalMs: this.#deps.intervalMs, initial: feed.initial };
    const actor = createActor(machine, { input, clock: this.#clock });
    actor.on('*', (event) => this.#deps.append(ticker, event as DomainEvent));
    this.#running.set(ticker, { attempt, actor });
    actor.start();
  }

  /** One read; a failure becomes the machine's {@link GasPriceFailure} (when, and why). */
  async #read(feed: GasPriceFeed, signal: AbortSignal): Promise<GasPriceRead> {
    try {
      return await feed.read(signal);
    } catch (error) {
      throw { at: this.#deps.clock.now(), reason: error instanceof Error ? error.message : String(error) };
    }
  }
}
