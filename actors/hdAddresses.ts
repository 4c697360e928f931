/**
 * HD address management of an enabled coin (issue 26, docs/compatibility.md §24): the next address
 * of an account chain (`get_new_address`, with the reference's gap-limit rule) and a scan beyond
 * the known addresses (`scan_for_new_addresses`). Each reads through the coin's
 * {@link HdAddressSource}, one round trip per read: the gap check and the new address together,
 * a scan window at a time.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { Bip44Chain as Chain } from '../spec/accountBalance.ts';
import { MAX_ADDRESSES_NUMBER } from '../spec/hdAddresses.ts';
import { REQUEST_DEFAULTS } from '../spec/requestDefaults.ts';
import { ChainFamilyId, type ActivatedCoin, type HdAccountListing, type HdAddressRead, type HdAddressSource } from '../machines/activation.types.ts';
import { isUsedAddress, listedOn } from '../machines/hdAccount.ts';


/** `CoinIsActivatedNotWithHDWallet` (400), as the reference answers a coin without an HD account. */
export const notHdWallet = (): ActivationError =>
  new ActivationError(ErrorType.CoinIsActivatedNotWithHDWallet, 'Coin is expected to be activated with the HD wallet derivation method');

/**
 * The coin's HD account `accountIndex` and how to reach more of its addresses.
 * @param unknownAccount the error of another account: `UnknownAccount` for `get_new_address`; the
 *   reference's scan answers `CoinIsActivatedNotWithHDWallet` there.
 */
export function hdAccountOf(coin: ActivatedCoin, accountIndex: number, unknownAccount: 'UnknownAccount' | 'NotHdWallet'): { hd: HdAccountListing; source: HdAddressSource } {
  const hd = coin.hd;
  if (hd?.source === undefined) throw notHdWallet();
  if (hd.accountId !== accountIndex) {
    if (unknownAccount === 'NotHdWallet') throw notHdWallet();
    throw new ActivationError(ErrorType.UnknownAccount, `HD account '${accountIndex}' is not activated`, { account_id: accountIndex });
  }
  return { hd, source: hd.source };
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/** The gap limit of a request: its own, else the activation's, else the default (20). */
const gapOf = (hd: HdAccountListing, gapLimit: number | undefined): number => gapLimit ?? hd.gapLimit ?? REQUEST_DEFAULTS.gap_limit;

/**
 * The next address of the account chain (id = the chain's listed count), read with its balances.
 * The reference's rule (`check_if_can_get_new_address`): allowed while fewer than `gap_limit`
 * addresses are listed; else `AddressLimitReached` at 2^31 addresses, and `EmptyAddressesLimitReached`
 * when none of the last `gap_limit` listed addresses was used. Those are read again with the new
 * address, in the same round trip (the reference checks them one request each).
 */
export async function readNewAddress(coin: ActivatedCoin, request: { accountIndex: number; chain: Chain; gapLimit?: number }, signal: AbortSignal): Promise<HdAddressRead> {
  const { hd, source } = hdAccountOf(coin, request.accountIndex, 'UnknownAccount');
  const known = listedOn(coin, request.chain);
  const gapLimit = gapOf(hd, request.gapLimit);
  if (known >= MAX_ADDRESSES_NUMBER) {
    throw new ActivationError(ErrorType.AddressLimitReached, `Reached the limit of addresses: ${MAX_ADDRESSES_NUMBER}`, { max_addresses_number: MAX_ADDRESSES_NUMBER });
  }
  // The reference walks back from the last known address, so even `gap_limit` 0 checks that one.
  const checked = known === 0 || gapLimit > known ? [] : range(known - Math.max(gapLimit, 1), known);
  const read = await source.read(request.chain, [...checked, known], coin.tokens, signal);
  if (checked.length > 0 && !read.addresses.slice(0, checked.length).some(isUsedAddress)) {
    throw new ActivationError(ErrorType.EmptyAddressesLimitReached, `Addresses limit reached: the last ${gapLimit} addresses of the chain are empty`, { gap_limit: gapLimit });
  }
  return read.addresses.at(-1)!;
}

/** What a scan found on one chain: the addresses added (up to the last used) and the chain's count now. */
export interface ChainScan {
  readonly chain: Chain;
  readonly knownAddresses: number;
  readonly found: readonly HdAddressRead[];
}

/**
 * Scans the account beyond its listed addresses (`scan_for_new_addresses`): from each chain's first
 * unlisted address, windows of addresses until `gap_limit` unused ones follow the last used one;
 * what lies up to the last used address is found (unused ones before it included). UTXO coins
 * scan External then Internal, account-model coins External only (the reference's
 * `scan_for_new_addresses` of `utxo_common.rs` and `eth_hd_wallet.rs`).
 */
export async function scanNewAddresses(coin: ActivatedCoin, request: { accountIndex: number; gapLimit?: number }, signal: AbortSignal): Promise<ChainScan[]> {
  const { hd, source } = hdAccountOf(coin, request.accountIndex, 'NotHdWallet');
  const gapLimit = gapOf(hd, request.gapLimit);
  const chains: Chain[] = coin.family === ChainFamilyId.Utxo ? ['External', 'Internal'] : ['External'];
  const scans: ChainScan[] = [];
  for (const chain of chains) {
    const known = listedOn(coin, chain);
    const reads: HdAddressRead[] = [];
    let lastUsed = known - 1;
    let next = known;
    while (next - 1 - lastUsed < gapLimit && next < MAX_ADDRESSES_NUMBER) {
      const indices = range(next, Math.min(MAX_ADDRESSES_NUMBER, next + gapLimit - (next - 1 - lastUsed)));
      const { addresses } = await source.read(chain, indices, coin.tokens, signal);
      for (const a of addresses) {
        reads.push(a);
        if (isUsedAddress(a)) lastUsed = Math.max(lastUsed, a.addressIndex);
      }
      next = indices.at(-1)! + 1;
    }
    scans.push({ chain, knownAddresses: lastUsed + 1, found: reads.filter((a) => a.addressIndex <= lastUsed) });
  }
  return scans;
}
