import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { coinStream } from '../log/eventLog.ts';
import { gweiOf } from '../../spec/render/gasPrice.ts';

/**
 * The gas price of one coin with a gas station, as its events tell it: the last price read (exact
 * wei, a decimal string), when the station answered it, and whether refreshes have failed since
 * (`stale`, from `staleSince`, the first failed refresh). Part of the coin's KV value (`gasPrice`)
 * and what `coin_status` shows; kept only while the coin is active.
 */
export interface GasPriceState {
  readonly gasPriceWei: string;
  /** The same price in gwei, an exact decimal string (`"75.000000001"`). */
  readonly gasPriceGwei: string;
  readonly updatedAt: string;
  readonly stale: boolean;
  /** Set while stale: when the first refresh of the stale period failed. */
  readonly staleSince?: string;
}

/** Lifecycle events after which a coin has no price until its next `GasPriceUpdated`. */
const CLEARS = new Set<DomainEvent['type']>([
  'SessionStarted',
  'ActivationRequested',
  'CoinActivated',
  'ActivationFailed',
  'ActivationCancelled',
  'ActivationInterrupted',
  'CoinPassivated',
  'CoinDisabled',
]);

/**
 * The one rule of a coin's gas price: its state after `event` of its own stream (`prev` undefined:
 * no price). A refresh runs only while the coin is active, so leaving active (or starting again)
 * clears it; a token disabled on the platform and every other event keep it.
 */
export function nextGasPrice(prev: GasPriceState | undefined, event: DomainEvent): GasPriceState | undefined {
  switch (event.type) {
    case 'GasPriceUpdated':
      return { gasPriceWei: event.data.gasPriceWei, gasPriceGwei: gweiOf(event.data.gasPriceWei), updatedAt: event.data.updatedAt, stale: false };
    case 'GasPriceStale': {
      if (prev === undefined) return undefined;
      const { gasPriceWei, gasPriceGwei, updatedAt } = prev;
      return { gasPriceWei, gasPriceGwei, updatedAt, stale: true, staleSince: event.data.since };
    }
    default:
      return CLEARS.has(event.type) ? undefined : prev;
  }
}

/**
 * The gas price of every coin of this node's current session, built only from events (so a
 * replay of the log gives the same answer as following it live): ticker of the coin's stream →
 * {@link GasPriceState}. A token pays gas in its platform coin: ask with the platform's ticker.
 */
export class GasPricesProjection {
  readonly #prices = new Map<string, GasPriceState>();
  #position = 0;

  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return; // idempotent on redelivery
    this.#position = event.metadata.seq;
    if (event.type === 'SessionStarted') {
      this.#prices.clear();
      return;
    }
    const ticker = coinOf(event);
    if (ticker === undefined) return;
    const next = nextGasPrice(this.#prices.get(ticker), event);
    if (next === undefined) this.#prices.delete(ticker);
    else this.#prices.set(ticker, next);
  }

  /** The price of coin `ticker` (a platform, or a coin activated on its own), if it has one. */
  get(ticker: string): GasPriceState | undefined {
    return this.#prices.get(ticker);
  }
}

const COIN_PREFIX = coinStream('');

/** The coin whose stream an event is on (`coin.<TICKER>`). */
function coinOf(event: StoredEvent): string | undefined {
  const { stream } = event.metadata;
  return stream.startsWith(COIN_PREFIX) ? stream.slice(COIN_PREFIX.length) : undefined;
}
