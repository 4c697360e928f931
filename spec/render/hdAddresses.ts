/** The wire form of HD address management results (docs/compatibility.md §24), for the RPC and the task status. */
import type { NewAddressRead, ScannedAddressesRead } from '../events.ts';
import type { GetNewAddressResult, NewAddressInfo, ScanAddressesInfo } from '../hdAddresses.ts';

/** spec 2.3 NewAddressInfo of an address as events record it. */
export function renderNewAddressInfo(read: NewAddressRead): NewAddressInfo {
  return { address: read.address, derivation_path: read.derivationPath, chain: read.chain, balance: read.balances };
}

/** `get_new_address`'s result (and its task's `Ok` details). */
export function renderNewAddress(read: NewAddressRead): GetNewAddressResult {
  return { new_address: renderNewAddressInfo(read) };
}

/** `task::scan_for_new_addresses` `Ok` details: spec 2.3 ScanAddressesInfo. */
export function renderScannedAddresses(read: ScannedAddressesRead): ScanAddressesInfo {
  return { account_index: read.accountIndex, derivation_path: read.accountPath, new_addresses: read.addresses.map(renderNewAddressInfo) };
}
