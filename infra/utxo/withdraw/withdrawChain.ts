/**
 * What a UTXO withdrawal needs from the coin's node, over Electrum or a native daemon: the sender's
 * spendable outputs, with the fee estimate and relay fee only when the fee depends on them, in as
 * few round trips as the answers allow; and the broadcast of a signed transaction.
 */
import type { Unspent } from './txPlan.ts';

export interface WithdrawReadRequest {
  /** The sender's address (a native daemon lists by address). */
  readonly address: string;
  /** Every output script that pays the sender (P2PKH and P2PK, or P2WPKH). */
  readonly scripts: readonly Uint8Array[];
  /** `txfee: 0` in the coins entry (no fee in the request): the node's estimate for this many blocks. */
  readonly estimateBlocks?: number;
  /** `force_min_relay_fee`: the node's relay fee rate too. */
  readonly relayFee: boolean;
  /** Coinbase outputs younger than this are not spendable (the coin's `mature_confirmations`). */
  readonly matureConfirmations: number;
  readonly decimals: number;
}

export interface WithdrawRead {
  readonly unspents: readonly Unspent[];
  /** Smallest units per kB, as the reference converts the node's answer. */
  readonly estimatePerKb?: bigint;
  readonly relayPerKb?: bigint;
  /** Round trips to the node this read took (docs/benchmarks.md). */
  readonly roundTrips: number;
}

/** The node side of a withdrawal; failures are `ActivationError`s of type `Transport`. */
export interface WithdrawChain {
  read(request: WithdrawReadRequest, signal: AbortSignal): Promise<WithdrawRead>;
  /** Raw hex of transactions by id, in one round trip (a device checks input amounts against them). */
  rawTransactions(txids: readonly string[], signal: AbortSignal): Promise<string[]>;
  /** Sends a signed transaction; the id the node gives and the node (origin label) that took it. */
  broadcast(txHex: string, signal: AbortSignal): Promise<{ readonly txHash: string; readonly node: string }>;
}

/**
 * A fee estimate in whole coins per kB (a JSON number) as the reference turns it into smallest
 * units: truncated after scaling, and 1000 when the node gives nothing useful (≤ 0.00001, or -1).
 */
export function estimateToPerKb(estimate: unknown, decimals: number): bigint {
  if (typeof estimate !== 'number' || !(estimate > 0.00001)) return 1000n;
  return BigInt(Math.trunc(estimate * 10 ** decimals));
}

/** A relay fee (whole coins per kB, a JSON number) in smallest units per kB, exact to its decimals. */
export function coinsPerKbToUnits(value: unknown, decimals: number): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error('relay fee is not a non-negative number');
  const [whole, fraction = ''] = value.toFixed(decimals).split('.');
  return BigInt(`${whole}${fraction}`);
}
