/**
 * Gap-limit scanning of one HD account chain (spec 4.1 `gap_limit`, `scan_policy`,
 * `min_addresses_number`; docs/compatibility.md §6, §8), batched: every address of a window is checked in
 * one read (one node round trip), so a fresh wallet costs one round trip where the reference makes
 * gap_limit + 1 sequential checks per chain. An address is used if it has a transaction count, a
 * native balance or any token balance.
 */

import type { HdScanPlan } from '../machines/activation.types.ts';

export type { HdScanPlan };

/** One address as a scan reads it: transaction count, native and token balances (tokens in order). */
export interface AddressRead {
  readonly txCount: bigint;
  /** The coin's spendable balance. */
  readonly native: bigint;
  /** The coin's unspendable balance (UTXO: immature coinbase outputs); none for account-model chains. */
  readonly unspendable?: bigint;
  readonly tokens: readonly bigint[];
}

/** A read of some addresses of the account (by index), in one round trip. */
export type ReadAddresses = (indices: readonly number[]) => Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }>;

export const ScanPolicy = { DoNotScan: 'do_not_scan', ScanIfNewWallet: 'scan_if_new_wallet', Scan: 'scan' } as const;
export type ScanPolicy = (typeof ScanPolicy)[keyof typeof ScanPolicy];

export interface HdScanResult {
  readonly currentBlock: number;
  readonly decimals: number[];
  /** Addresses 0 … n−1 with their reads, n = max(known, minAddresses). */
  readonly addresses: readonly AddressRead[];
  /** Used addresses now known: the last used index + 1 (never less than before). */
  readonly knownAddresses: number;
  readonly roundTrips: number;
}

export const isUsed = (read: AddressRead): boolean =>
  read.txCount > 0n || read.native > 0n || (read.unspendable ?? 0n) > 0n || read.tokens.some((t) => t > 0n);

/** One read of a scan: addresses `fromIndex` … `fromIndex + checked − 1`, `used` of them used. */
export interface ScanWindow {
  readonly fromIndex: number;
  readonly checked: number;
  readonly used: number;
  /** Used addresses known after this read. */
  readonly knownAddresses: number;
}

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/**
 * Reads the known and required addresses and, when scanning, windows beyond them until
 * `gapLimit` consecutive unused addresses follow the last used one. The first window goes in the
 * same read as the known addresses. `onWindow` hears of each read (one per round trip).
 */
export async function scanHdAccount(plan: HdScanPlan, read: ReadAddresses, onWindow?: (window: ScanWindow) => void): Promise<HdScanResult> {
  const reads = new Map<number, AddressRead>();
  let next = range(0, Math.max(plan.knownAddresses, plan.minAddresses));
  if (plan.scan) next = [...new Set([...next, ...range(plan.knownAddresses, plan.knownAddresses + plan.gapLimit)])].sort((a, b) => a - b);
  let currentBlock = 0;
  let decimals: number[] = [];
  let roundTrips = 0;
  let lastUsed = plan.knownAddresses - 1;
  while (next.length > 0) {
    const result = await read(next);
    roundTrips += 1;
    ({ currentBlock, decimals } = result);
    next.forEach((index, i) => reads.set(index, result.addresses[i]!));
    const used = next.filter((index) => isUsed(reads.get(index)!));
    for (const index of used) lastUsed = Math.max(lastUsed, index);
    onWindow?.({ fromIndex: next[0]!, checked: next.length, used: used.length, knownAddresses: Math.max(plan.knownAddresses, lastUsed + 1) });
    if (!plan.scan) break;
    const highest = Math.max(...reads.keys());
    const trailing = highest - Math.max(lastUsed, plan.knownAddresses - 1);
    next = trailing >= plan.gapLimit ? [] : range(highest + 1, highest + 1 + plan.gapLimit - trailing);
  }
  const knownAddresses = Math.max(plan.knownAddresses, lastUsed + 1);
  const listed = Math.max(knownAddresses, plan.minAddresses);
  return { currentBlock, decimals, addresses: range(0, listed).map((i) => reads.get(i)!), knownAddresses, roundTrips };
}
