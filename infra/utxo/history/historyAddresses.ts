import type { HistoryAddress } from '../../../actors/history/historyPort.ts';
import type { ActivatedCoin } from '../../../machines/activation.types.ts';

/**
 * The addresses whose transactions make an active coin's history: its HD account's listed addresses
 * (with their account, chain and index, for the `account_id`/`address_id` targets), else its address.
 */
export function historyAddresses(coin: ActivatedCoin): HistoryAddress[] {
  const hd = coin.hd;
  if (hd === undefined) return [{ address: coin.address }];
  return hd.addresses.map((a) => ({ address: a.address, hd: { accountId: hd.accountId, chain: a.chain, addressId: addressIndex(a.derivationPath) } }));
}

/** The last index of a BIP32 path (`m/44'/2'/0'/0/3` → 3). */
function addressIndex(path: string): number {
  const last = path.split('/').pop() ?? '';
  const index = Number.parseInt(last.replace(/'$/, ''), 10);
  if (!Number.isSafeInteger(index)) throw new Error(`not an address path: ${path}`);
  return index;
}
