/**
 * Which nodes have the multicall contract ({@link MulticallSupport}). The node runner attaches a
 * {@link MulticallRoute} to each provider it creates, so every reader of that provider (platform,
 * HD scan, legacy `enable`, balance) uses it without being told.
 */
import type { JsonRpcProvider } from 'ethers';
import { MulticallSupport, type MulticallKnown } from '../../multicall/multicallSupport.ts';

export { MulticallSupport, type MulticallKnown };

/** The multicall contract to try through one provider, and where to remember the outcome. */
export interface MulticallRoute {
  readonly url: string;
  readonly address: string;
  readonly support: MulticallSupport;
}

const routes = new WeakMap<JsonRpcProvider, MulticallRoute>();

/** Makes `provider`'s reads go through `route`'s contract (when the node has it). */
export function attachMulticall(provider: JsonRpcProvider, route: MulticallRoute): void {
  routes.set(provider, route);
}

/** The route attached to `provider`, if any; without one every read is a plain call. */
export function multicallRouteOf(provider: JsonRpcProvider): MulticallRoute | undefined {
  return routes.get(provider);
}
