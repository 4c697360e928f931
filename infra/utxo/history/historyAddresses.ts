import type { HistoryAddress } from '../../../actors/history/historyPort.ts';
import type { ActivatedCoin } from '../../../machines/activation.types.ts';
import { addressIdOf } from '../../../machines/hdAccount.ts';

/**
 * The addresses whose transactions make an active coin's history: its HD account's listed addresses
 * (with their account, chain and index, for the `account_id`/`address_id` targets), else its address.
 */
export function historyAddresses(coin: ActivatedCoin): HistoryAddress[] {
  const hd = coin.hd;
  if (hd === undefined) return [{ address: coin.address }];
  return hd.addresses.map((a) => ({ address: a.address, hd: { accountId: hd.accountId, chain: a.chain, addressId: addressIdOf(a.derivationPath) } }));
}
