import type { DomainEvent } from '../../spec/events.ts';
import { gweiOf } from '../../spec/render/gasPrice.ts';

/**
 * The gas price of one coin with a gas station, as its events tell it: the last price read (exact
 * wei, a decimal string), when the station answered it, and whether refreshes have failed since
 * (`stale`, from `staleSince`, the first failed refresh). Part of the coin's KV value (`gasPrice`,
 * `coinStatus.ts`), which `coin_status` shows; kept only while the coin is active.
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
  'CoinDisabled',
]);

/**
 * The one rule of a coin's gas price: its state after `event` of its own stream (`prev` undefined:
 * no price). A refresh runs while the coin is active or passive (kept for its tokens, which pay gas
 * in it), so leaving both (or starting again) clears it; a token disabled on the platform, becoming
 * passive and every other event keep it.
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
