/**
 * What is known of each node's multicall contract: learned once per node URL and contract address
 * in a session, from the node's own answer, and remembered for every coin that uses the node. One
 * per family: TRON remembers whether the contract answers (`boolean`), EVM which read path the
 * node takes. Keys hold node URLs, which are never logged.
 */

/** What is known of a node: `undefined` until its first read. */
export type MulticallKnown<T = boolean> = T | undefined;

export class MulticallSupport<T = boolean> {
  readonly #known = new Map<string, T>();

  known(url: string, contract: string): MulticallKnown<T> {
    return this.#known.get(key(url, contract));
  }

  remember(url: string, contract: string, value: T): void {
    this.#known.set(key(url, contract), value);
  }
}

function key(url: string, contract: string): string {
  return `${contract.toLowerCase()} ${url}`;
}
