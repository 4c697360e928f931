/**
 * Which nodes have the multicall contract: learned once per node URL (and contract address) in a
 * session, from the node's own answer, and remembered. The node runner attaches a
 * {@link MulticallRoute} to each provider it creates, so every reader of that provider (platform,
 * HD scan, legacy `enable`, balance) uses it without being told.
 */
import type { JsonRpcProvider } from 'ethers';

/** What is known of a node: `undefined` until its first read. */
export type MulticallKnown = boolean | undefined;

/** The session's memory, one per family; keys hold node URLs (never logged). */
export class MulticallSupport {
  readonly #known = new Map<string, boolean>();

  known(url: string, address: string): MulticallKnown {
    return this.#known.get(key(url, address));
  }

  remember(url: string, address: string, present: boolean): void {
    this.#known.set(key(url, address), present);
  }
}

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

function key(url: string, address: string): string {
  return `${address.toLowerCase()} ${url}`;
}
