/**
 * A gas station through an EVM coin's life, the same for every method that takes one (legacy
 * `enable`, `enable_eth_with_tokens`, `task::enable_eth::init`): the check of its URL when
 * planning, the read at activation concurrently with the chain's, and the feed that refreshes it
 * while the coin is active (`actors/gasPriceRefreshers.ts`). Pricing itself: `gasStationPrice.ts`.
 */
import { invalidRequest } from '../../spec/errors.ts';
import type { GasPriceFeed, GasStationSpec } from '../../actors/ports/chainFamily.ts';
import type { Clock } from '../../kernel/clock.ts';
import { urlLabel } from '../../kernel/urlLabel.ts';
import { readGasStationPrice } from './gasStationPrice.ts';
import { allOrAbort } from '../../kernel/allOrAbort.ts';

/** An active coin's gas station and the price its activation read (`readAt`: ms since the epoch). */
export interface GasPriceAtActivation {
  readonly station: GasStationSpec;
  readonly wei: bigint;
  readonly readAt: number;
}

/** How a station is read: on `clock`, each read bounded by `timeoutMs` (the family's node budget). */
export interface GasStationDeps {
  readonly clock: Clock;
  readonly timeoutMs: number;
}

/**
 * The request's station, checked: an `http(s)://` URL (refused naming its origin only, as its
 * path or query may hold an API key). `field` is the request's name for it.
 */
export function planGasStation(station: GasStationSpec | undefined, field: string): GasStationSpec | undefined {
  if (station !== undefined && !isHttpUrl(station.url)) {
    throw invalidRequest(`${field} ${urlLabel(station.url)}: expected an http:// or https:// URL`);
  }
  return station;
}

/** An absolute `http(s)://` URL with a host. */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\/[^/]/i.test(url) && URL.canParse(url);
}

/**
 * Runs `work` and, with a station, reads its price concurrently on a signal of their own: the
 * first failure aborts the other and is the one thrown (the station's is the legacy sentence of
 * spec 7.2, type `Transport`); `signal` aborts both.
 */
export async function withGasStation<T>(
  station: GasStationSpec | undefined,
  signal: AbortSignal,
  deps: GasStationDeps,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<[T, GasPriceAtActivation | undefined]> {
  const read = async (s: AbortSignal): Promise<GasPriceAtActivation | undefined> => {
    if (station === undefined) return undefined;
    const wei = await readGasStationPrice(station, s, deps);
    return { station, wei, readAt: deps.clock.now() };
  };
  return allOrAbort<[T, GasPriceAtActivation | undefined]>(signal, [work, read]);
}

/** The feed of a coin activated with a station: its activation's price, and a new read on demand. */
export function gasPriceFeed(gasPrice: GasPriceAtActivation | undefined, deps: GasStationDeps): GasPriceFeed | undefined {
  if (gasPrice === undefined) return undefined;
  return {
    initial: { wei: gasPrice.wei, at: gasPrice.readAt },
    read: async (signal) => ({ wei: await readGasStationPrice(gasPrice.station, signal, deps), at: deps.clock.now() }),
  };
}
