/**
 * An enabled coin's HD account as it grows after activation (issue 26): which addresses it lists
 * per chain, whether one was used, and how new ones join the listing and the events. Pure.
 */
import type { NewAddressRead } from '../spec/events.ts';
import { balanceInfo, type ActivatedCoin, type HdAddressRead, type HdListedAddress } from './activation.types.ts';

/** Whether an address was ever used: a transaction touched it, or it holds a balance of any ticker. */
export function isUsedAddress(read: HdAddressRead): boolean {
  return read.txCount > 0n || Object.values(read.balances).some((b) => b.spendable > 0n || b.unspendable > 0n);
}

/** How many addresses of `chain` the coin's HD account lists (its next address id). */
export function listedOn(coin: ActivatedCoin, chain: 'External' | 'Internal'): number {
  return coin.hd?.addresses.filter((a) => a.chain === chain).length ?? 0;
}

/**
 * An address as events record it: balances as decimal strings in each ticker's unit, none at all
 * with `unused` (a scan's gap address, which the reference lists with an empty balance map).
 */
export function summarizeHdAddress(coin: ActivatedCoin, read: HdAddressRead, unused = false): NewAddressRead {
  const decimalsOf = new Map<string, number>([[coin.ticker, coin.decimals], ...coin.tokens.map((t) => [t.ticker, t.decimals] as const)]);
  const balances = unused ? {} : Object.fromEntries(Object.entries(read.balances).map(([ticker, b]) => [ticker, balanceInfo(b, decimalsOf.get(ticker) ?? 0)]));
  return { address: read.address, derivationPath: read.derivationPath, chain: read.chain, addressIndex: read.addressIndex, balances };
}

/**
 * The coin with `found` added to its HD account's listing (an address already listed keeps its
 * place and takes the new read). Each chain stays in address-id order, External first.
 */
/** The address id of an address's BIP32 path: its last index (`m/44'/2'/0'/0/3` → 3). */
export function addressIdOf(path: string): number {
  const index = Number.parseInt(path.slice(path.lastIndexOf('/') + 1).replace(/'$/, ''), 10);
  if (!Number.isSafeInteger(index)) throw new Error(`not an address path: ${path}`);
  return index;
}

export function withHdAddresses(coin: ActivatedCoin, found: readonly HdAddressRead[]): ActivatedCoin {
  const hd = coin.hd;
  if (hd === undefined || found.length === 0) return coin;
  const byPath = new Map<string, HdListedAddress>(hd.addresses.map((a) => [a.derivationPath, a]));
  for (const { address, derivationPath, chain, balances } of found) byPath.set(derivationPath, { address, derivationPath, chain, balances });
  const order = (a: HdListedAddress, b: HdListedAddress) => (a.chain === b.chain ? addressIdOf(a.derivationPath) - addressIdOf(b.derivationPath) : a.chain === 'External' ? -1 : 1);
  return { ...coin, hd: { ...hd, addresses: [...byPath.values()].sort(order) } };
}
