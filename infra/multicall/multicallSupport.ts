/**
 * Which nodes have a multicall contract: learned once per node URL and contract address in a
 * session, from the node's own answer, and remembered for every coin that uses the node. One per
 * family (EVM, TRON); keys hold node URLs, which are never logged.
 */

/** What is known of a node: `undefined` until its first read. */
export type MulticallKnown = boolean | undefined;

export class MulticallSupport {
  readonly #known = new Map<string, boolean>();

  known(url: string, contract: string): MulticallKnown {
    return this.#known.get(key(url, contract));
  }

  remember(url: string, contract: string, present: boolean): void {
    this.#known.set(key(url, contract), present);
  }
}

function key(url: string, contract: string): string {
  return `${contract.toLowerCase()} ${url}`;
}
