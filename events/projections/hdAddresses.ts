import type { StoredEvent } from '../../spec/events.ts';

/**
 * How many addresses of each HD account are known, per wallet, coin, account and chain: used ones
 * from `CoinActivated` and `AddressesScanned`, handed-out ones from `AddressCreated` (issue 26). Unlike enabled coins it survives `SessionStarted`: it is what lets
 * `scan_if_new_wallet` skip the scan on later activations, across restarts.
 */
export class HdAddressesProjection {
  readonly #known = new Map<string, number>();
  #position = 0;

  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return; // idempotent on redelivery
    this.#position = event.metadata.seq;
    if (event.type === 'CoinActivated' && event.data.hd !== undefined) {
      const { walletId, accountIndex, chain, knownAddresses, otherChain } = event.data.hd;
      this.#raise(keyOf(walletId, event.data.ticker, accountIndex, chain), knownAddresses);
      if (otherChain !== undefined) this.#raise(keyOf(walletId, event.data.ticker, accountIndex, otherChain.chain), otherChain.knownAddresses);
    } else if (event.type === 'AddressCreated') {
      // A handed-out address is known from now on, used or not (as the reference stores its count).
      const { walletId, ticker, accountIndex, chain, addressIndex } = event.data;
      this.#raise(keyOf(walletId, ticker, accountIndex, chain), addressIndex + 1);
    } else if (event.type === 'AddressesScanned') {
      const { walletId, ticker, accountIndex, chain, knownAddresses } = event.data;
      this.#raise(keyOf(walletId, ticker, accountIndex, chain), knownAddresses);
    }
  }

  #raise(key: string, known: number): void {
    this.#known.set(key, Math.max(this.#known.get(key) ?? 0, known));
  }

  /** The recorded count, or `undefined` when this wallet never activated that account chain. */
  known(walletId: string, ticker: string, accountId: number, chain: string): number | undefined {
    return this.#known.get(keyOf(walletId, ticker, accountId, chain));
  }
}

function keyOf(walletId: string, ticker: string, accountId: number, chain: string): string {
  return `${walletId}\u0000${ticker}\u0000${accountId}\u0000${chain}`;
}
