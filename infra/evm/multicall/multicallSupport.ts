/**
 * How each EVM node reads balances ({@link ReadPath}), learned per node and multicall address. The
 * node runner attaches a {@link MulticallRoute} to each provider it creates, so every reader of that
 * provider (platform, HD scan, legacy `enable`, balance) uses it without being told.
 */
import type { JsonRpcProvider } from 'ethers';
import { MulticallSupport } from '../../multicall/multicallSupport.ts';

/**
 * The read paths of a node. `deployless` until the node is known (every EVM node runs it, and its
 * first call also tells whether the node's chain has a working Multicall3); `multicall` where it
 * has one (the cheaper read for the node, docs/benchmarks.md); `plain` (every value its own call)
 * for a node that refuses calls without `to`.
 */
export const ReadPath = { Deployless: 'deployless', Multicall: 'multicall', Plain: 'plain' } as const;
export type ReadPath = (typeof ReadPath)[keyof typeof ReadPath];

/** Which path each node takes, and how many reads its gas cap lets one deployless call make, remembered for the session. */
export class ReadPaths extends MulticallSupport<ReadPath> {
  readonly #chunkReads = new Map<string, number>();

  /** Most reads the node's `eth_call` gas cap let one deployless call make, once a call was cut short there. */
  chunkReads(url: string): number | undefined {
    return this.#chunkReads.get(url);
  }

  /** A deployless call to `url` made only `reads` reads before the node's gas cap stopped it. */
  rememberCut(url: string, reads: number): void {
    this.#chunkReads.set(url, Math.min(reads, this.#chunkReads.get(url) ?? reads));
  }
}

/** The multicall contract to check through one provider, and where to remember the node's path. */
export interface MulticallRoute {
  readonly url: string;
  readonly address: string;
  readonly paths: ReadPaths;
}

const routes = new WeakMap<JsonRpcProvider, MulticallRoute>();

/** Makes `provider`'s reads take the path remembered for its node, and remember what they learn. */
export function attachMulticall(provider: JsonRpcProvider, route: MulticallRoute): void {
  routes.set(provider, route);
}

/** The route attached to `provider`, if any; without one every read is deployless and nothing is remembered. */
export function multicallRouteOf(provider: JsonRpcProvider): MulticallRoute | undefined {
  return routes.get(provider);
}
