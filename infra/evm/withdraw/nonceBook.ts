/**
 * The nonce book of EVM withdrawals (issue 25): what this service broadcast and the node may not
 * show yet. A signed withdrawal that is never broadcast reserves nothing (a preview leaves no gap);
 * a transaction this service broadcast holds its nonce until the node's mined count passes it, so
 * the next withdrawal takes the next nonce even before the node shows the first; and a different
 * transaction with a nonce already used by one of those broadcasts is refused, never replaced
 * silently. In memory, per service: after a restart the node's pending count is the whole truth.
 */

/** A sender on a chain. */
const keyOf = (chainId: number, address: string) => `${chainId}:${address.toLowerCase()}`;

export class NonceBook {
  /** sender → nonce → hash of the transaction broadcast with it. */
  readonly #sent = new Map<string, Map<bigint, string>>();

  /**
   * The nonce of the sender's next transaction: the node's pending count, or past the highest nonce
   * this service broadcast and the node has not mined (`mined`: the node's latest count).
   */
  next(chainId: number, address: string, pending: bigint, mined: bigint): bigint {
    const sent = this.#sent.get(keyOf(chainId, address));
    if (sent === undefined) return pending;
    for (const nonce of sent.keys()) if (nonce < mined) sent.delete(nonce);
    if (sent.size === 0) this.#sent.delete(keyOf(chainId, address));
    const highest = [...sent.keys()].reduce((a, b) => (b > a ? b : a), -1n);
    return highest + 1n > pending ? highest + 1n : pending;
  }

  /** The hash of another transaction this service broadcast with the same sender and nonce, if any. */
  usedBy(chainId: number, address: string, nonce: bigint, hash: string): string | undefined {
    const other = this.#sent.get(keyOf(chainId, address))?.get(nonce);
    return other !== undefined && other !== hash ? other : undefined;
  }

  /** Records a transaction a node took. */
  record(chainId: number, address: string, nonce: bigint, hash: string): void {
    const key = keyOf(chainId, address);
    const sent = this.#sent.get(key) ?? new Map<bigint, string>();
    sent.set(nonce, hash);
    this.#sent.set(key, sent);
  }
}
