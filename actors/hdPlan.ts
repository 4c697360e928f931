/**
 * The HD part of an activation request (spec 2.2 AddressPath, 4.1 `gap_limit`, `scan_policy`,
 * `min_addresses_number`): which address is enabled and how far to scan, resolved against the
 * coin's `derivation_path` and the address count earlier activations recorded.
 */
import { createHash } from 'node:crypto';
import type { CoinEntry } from '../spec/coins.ts';
import type { HdScanPlan, HdScanRequest } from '../machines/activation.types.ts';
import { ScanPolicy } from './hdScan.ts';
import { ErrorType, errorSentence, invalidRequest } from '../spec/errors.ts';
import { REQUEST_DEFAULTS, withoutEffectMessage, type FieldWithoutEffect } from '../spec/requestDefaults.ts';

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
  return addressPathFromParts(request);
}

/** The parts of `path_to_address`, each defaulted (account 0, External, index 0). */
function addressPathFromParts(request: AddressPathRequest | undefined): { accountId: number; chain: 'External' | 'Internal'; addressId: number } {
  const chain = request?.chain === 'Internal' || request?.chain === 1 ? 'Internal' : 'External';
  return { accountId: request?.accountId ?? 0, chain, addressId: request?.addressId ?? 0 };
}

/** Keys that have a single address for a coin, so `path_to_address` can only name that one. */
export const SingleAddressKey = { Iguana: 'Iguana', Hardware: 'Hardware' } as const;
export type SingleAddressKey = (typeof SingleAddressKey)[keyof typeof SingleAddressKey];

/**
 * `path_to_address` where the key has one address: an Iguana key (`enable_hd` false), or a hardware
 * key read at account 0, External, index 0 only (a UTXO coin over a native daemon;
 * docs/compatibility.md §6; elsewhere a device's coin is an HD account). The
 * reference ignores the path there; clients (the reference's own among them) send the default path
 * with every request, so a path naming that address is accepted, and any other is refused rather
 * than silently dropped: `UnexpectedDerivationMethod` for an Iguana key, `InvalidRequest` for a
 * hardware key. The same rule for every method (legacy and v2).
 */
export function requireSingleAddressPath(entry: CoinEntry, request: AddressPathRequest | undefined, key: SingleAddressKey): void {
  if (request === undefined) return;
  // A full path is read against the coin's own; without one it cannot name the key's address.
  const path =
    request.derivationPath === undefined
      ? addressPathFromParts(request)
      : entry.derivation_path === undefined
        ? undefined
        : resolveAddressPath(entry, request);
  if (path !== undefined && path.accountId === 0 && path.chain === 'External' && path.addressId === 0) return;
  const asked = path === undefined ? 'a derivation_path' : `account ${path.accountId}, ${path.chain}, address ${path.addressId}`;
  const remedy = 'leave path_to_address out (or give account 0, External, address 0)';
  if (key === SingleAddressKey.Hardware) {
    throw invalidRequest(`path_to_address asks for ${asked} of ${entry.coin}, but a hardware key is read at account 0, External, address 0 only: ${remedy}`);
  }
  throw errorSentence(
    ErrorType.UnexpectedDerivationMethod,
    `path_to_address asks for ${asked} of ${entry.coin}, but an Iguana key (enable_hd false) has one address per coin: ${remedy}, or set enable_hd to choose an HD address`,
  );
}

/**
 * The scan fields (`gap_limit`, `scan_policy`, `min_addresses_number`) where the key has one
 * address, by the one rule of fields without effect (spec/requestDefaults.ts): their defaults are
 * accepted, and so is what a one-address key already does (`scan_policy` `do_not_scan`,
 * `min_addresses_number` up to 1); anything else is refused rather than silently dropped.
 */
export function requireSingleAddressScan(entry: CoinEntry, request: HdRequest | undefined, key: SingleAddressKey): void {
  const fields: FieldWithoutEffect[] = [
    { field: 'scan_policy', path: 'params.scan_policy', value: request?.scanPolicy, alsoNoOp: (v) => v === ScanPolicy.DoNotScan },
    { field: 'gap_limit', path: 'params.gap_limit', value: request?.gapLimit },
    { field: 'min_addresses_number', path: 'params.min_addresses_number', value: request?.minAddressesNumber, alsoNoOp: (v) => (v as number) <= 1 },
  ];
  if (key === SingleAddressKey.Hardware) {
    const problem = withoutEffectMessage(fields, `a hardware key is read at account 0, External, address 0 of ${entry.coin} only, with no address scan`);
    if (problem !== undefined) throw invalidRequest(problem);
    return;
  }
  const why = `an Iguana key (enable_hd false) has one address per coin (${entry.coin}), with no address scan`;
  const problem = withoutEffectMessage(fields, why, 'set enable_hd to scan an HD account');
  if (problem !== undefined) throw errorSentence(ErrorType.UnexpectedDerivationMethod, problem);
}

/**
 * The scan of an HD activation. `known` is the address count recorded for this wallet, coin,
 * account and chain, or `undefined` when it was never activated (a new wallet).
 */
export function resolveHdScan(entry: CoinEntry, request: HdRequest | undefined, known: (accountId: number, chain: 'External' | 'Internal') => number | undefined): HdScanPlan {
  const resolved = resolveHdRequest(entry, request);
  return completeHdScan(resolved, known(resolved.accountId, resolved.chain), known(resolved.accountId, otherChain(resolved.chain)));
}

/**
 * The HD fields resolved against the coin, before the wallet is known (a device names its wallet
 * only once it gave its account node): the path, and the scan's defaults applied.
 */
export function resolveHdRequest(entry: CoinEntry, request: HdRequest | undefined): HdScanRequest {
  const path = resolveAddressPath(entry, request?.pathToAddress);
  const scanPolicy = request?.scanPolicy ?? ScanPolicy.ScanIfNewWallet;
  const gapLimit = request?.gapLimit ?? REQUEST_DEFAULTS.gap_limit;
  // `scan` always scans: refused here, before any device or node is asked.
  if (scanPolicy === ScanPolicy.Scan && gapLimit < 1) throw invalidRequest(GAP_LIMIT_TOO_SMALL);
  return { ...path, gapLimit, scanPolicy, minAddresses: Math.max(request?.minAddressesNumber ?? 0, path.addressId + 1) };
}

/** The account's other BIP44 chain. */
export const otherChain = (chain: 'External' | 'Internal'): 'External' | 'Internal' => (chain === 'External' ? 'Internal' : 'External');

/**
 * The scan once the wallet's recorded count for the account chain is known (`undefined`: never
 * activated), and that of the other chain (listed, not scanned).
 */
export function completeHdScan(request: HdScanRequest, recorded: number | undefined, otherRecorded?: number): HdScanPlan {
  const { scanPolicy, ...rest } = request;
  const scan = scanPolicy === ScanPolicy.Scan || (scanPolicy === ScanPolicy.ScanIfNewWallet && recorded === undefined);
  if (scan && request.gapLimit < 1) throw invalidRequest(GAP_LIMIT_TOO_SMALL);
  return { ...rest, scan, knownAddresses: recorded ?? 0, ...(otherRecorded ? { otherChainAddresses: otherRecorded } : {}) };
}

const GAP_LIMIT_TOO_SMALL = 'params.gap_limit: must be at least 1 to scan';

/**
 * The wallet id a device account's addresses are recorded under: the first 20 bytes of SHA-256 of
 * the account's compressed public key (hex, 40 digits). A device gives no master key, so the id is
 * per account; each record is per coin and account anyway. Public data only.
 */
export function deviceWalletId(accountPublicKeyHex: string): string {
  return createHash('sha256').update(Buffer.from(accountPublicKeyHex, 'hex')).digest('hex').slice(0, 40);
}
