/**
 * The HD address operations of enabled coins (issue 26, docs/compatibility.md §24): each reads
 * through the coin's account (actors/hdAddresses.ts), then records what it found on the coin's
 * machine (`AddressCreated`, `AddressesScanned`), which the watchers then follow. A token's
 * request works on its platform's account. The operations
 * of one coin run one after the other, each on the coin as it is then, so two requests at once
 * get two addresses.
 */
import type { ActivationError } from '../spec/errors.ts';
import type { NewAddressRead, ScannedAddressesRead } from '../spec/events.ts';
import type { Bip44Chain } from '../spec/accountBalance.ts';
import type { ActivatedCoin, ActivatedToken } from '../machines/activation.types.ts';
import { isUsedAddress, summarizeHdAddress } from '../machines/hdAccount.ts';
import type { CoinRegistry } from './coinRegistry.ts';
import { readNewAddress, scanNewAddresses } from './hdAddresses.ts';

export interface HdAddressOperationsDeps {
  readonly registry: Pick<CoinRegistry, 'addHdAddresses'>;
  /** The enabled coin that answers for `ticker` (itself, or a token's platform) and the token; `undefined`: none. */
  find(ticker: string): { coin: ActivatedCoin; token: ActivatedToken | undefined } | undefined;
  /** The error of a coin that is not enabled. */
  noSuchCoin(ticker: string): ActivationError;
}

export class HdAddressOperations {
  readonly #deps: HdAddressOperationsDeps;
  /** Per platform: its last operation, settled. */
  readonly #queue = new Map<string, Promise<void>>();

  constructor(deps: HdAddressOperationsDeps) {
    this.#deps = deps;
  }

  /** The next address of the account chain, read with the gap-limit check, then recorded (`AddressCreated`). */
  newAddress(ticker: string, request: { accountIndex: number; chain: Bip44Chain; gapLimit?: number }, signal: AbortSignal): Promise<NewAddressRead> {
    return this.#run(ticker, async (coin, seen) => {
      const created = await readNewAddress(coin, request, signal);
      await this.#deps.registry.addHdAddresses(coin.ticker, { type: 'ADD_HD_ADDRESSES', accountIndex: request.accountIndex, created });
      return seen(summarizeHdAddress(coin, created));
    });
  }

  /** A scan beyond the account's listed addresses; what it found is recorded (`AddressesScanned`, one per chain). */
  scan(ticker: string, request: { accountIndex: number; gapLimit?: number }, signal: AbortSignal): Promise<ScannedAddressesRead> {
    return this.#run(ticker, async (coin, seen) => {
      const scanned = await scanNewAddresses(coin, request, signal);
      await this.#deps.registry.addHdAddresses(coin.ticker, { type: 'ADD_HD_ADDRESSES', accountIndex: request.accountIndex, scanned });
      const addresses = scanned.flatMap((s) => s.found.map((a) => seen(summarizeHdAddress(coin, a, !isUsedAddress(a)))));
      return { accountIndex: request.accountIndex, accountPath: coin.hd!.accountPath, addresses };
    });
  }

  /**
   * Runs `operation` on the enabled coin `ticker` after its previous one. A token works on its
   * platform's account, which it shares (as the reference's ERC20 coins share their platform's
   * HD wallet), and sees its own balances only (`seen`).
   */
  #run<T>(ticker: string, operation: (coin: ActivatedCoin, seen: (address: NewAddressRead) => NewAddressRead) => Promise<T>): Promise<T> {
    const { find, noSuchCoin } = this.#deps;
    const found = find(ticker);
    if (found === undefined) return Promise.reject(noSuchCoin(ticker));
    const platform = found.coin.ticker;
    const token = found.token?.ticker;
    const seen = (address: NewAddressRead): NewAddressRead =>
      token === undefined ? address : { ...address, balances: Object.fromEntries(Object.entries(address.balances).filter(([t]) => t === token)) };
    const run = (this.#queue.get(platform) ?? Promise.resolve()).then(() => {
      const coin = find(ticker)?.coin;
      return coin === undefined ? Promise.reject(noSuchCoin(ticker)) : operation(coin, seen);
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queue.set(platform, settled);
    void settled.then(() => this.#queue.get(platform) === settled && this.#queue.delete(platform));
    return run;
  }
}
