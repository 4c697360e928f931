/**
 * The HD part of an activation request (spec 2.2 AddressPath, 4.1 `gap_limit`, `scan_policy`,
 * `min_addresses_number`): which address is enabled and how far to scan, resolved against the
 * coin's `derivation_path` and the address count earlier activations recorded.
 */
import type { CoinEntry } from '../spec/coins.ts';
import type { HdScanPlan } from '../machines/activation.types.ts';
import { ScanPolicy } from './hdScan.ts';
import { invalidRequest } from '../spec/errors.ts';

/** `path_to_address`: the parts, or a full `derivation_path`. */
export interface AddressPathRequest {
  readonly accountId?: number;
  readonly addressId?: number;
  readonly chain?: 'External' | 'Internal' | 0 | 1;
  readonly derivationPath?: string;
}

/** The HD fields of an activation request, in domain form. */
export interface HdRequest {
  readonly pathToAddress?: AddressPathRequest;
  readonly gapLimit?: number;
  readonly scanPolicy?: ScanPolicy;
  readonly minAddressesNumber?: number;
}

/** The reference's default gap limit. */
export const DEFAULT_GAP_LIMIT = 20;

/** The enabled address's account, chain and index; a full path must lie under the coin's. */
export function resolveAddressPath(entry: CoinEntry, request: AddressPathRequest | undefined): { accountId: number; chain: 'External' | 'Internal'; addressId: number } {
  const base = entry.derivation_path;
  if (base === undefined) throw invalidRequest(`${entry.coin} has no derivation_path in the coins file: HD mode needs one`);
  if (request?.derivationPath !== undefined) {
    const escaped = base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const match = new RegExp(`^${escaped}/(\\d+)'/([01])/(\\d+)$`).exec(request.derivationPath);
    if (!match) {
      throw invalidRequest(`params.path_to_address.derivation_path: expected ${base}/<account>'/<0|1>/<index> for ${entry.coin}`);
    }
    return { accountId: Number(match[1]), chain: match[2] === '1' ? 'Internal' : 'External', addressId: Number(match[3]) };
  }
  const chain = request?.chain === 'Internal' || request?.chain === 1 ? 'Internal' : 'External';
  return { accountId: request?.accountId ?? 0, chain, addressId: request?.addressId ?? 0 };
}

/**
 * The scan of an HD activation. `known` is the address count recorded for this wallet, coin,
 * account and chain, or `undefined` when it was never activated (a new wallet).
 */
export function resolveHdScan(entry: CoinEntry, request: HdRequest | undefined, known: (accountId: number, chain: 'External' | 'Internal') => number | undefined): HdScanPlan {
  const path = resolveAddressPath(entry, request?.pathToAddress);
  const recorded = known(path.accountId, path.chain);
  const policy = request?.scanPolicy ?? ScanPolicy.ScanIfNewWallet;
  const scan = policy === ScanPolicy.Scan || (policy === ScanPolicy.ScanIfNewWallet && recorded === undefined);
  const gapLimit = request?.gapLimit ?? DEFAULT_GAP_LIMIT;
  if (scan && gapLimit < 1) throw invalidRequest('params.gap_limit: must be at least 1 to scan');
  return {
    ...path,
    gapLimit,
    scan,
    minAddresses: Math.max(request?.minAddressesNumber ?? 0, path.addressId + 1),
    knownAddresses: recorded ?? 0,
  };
}
