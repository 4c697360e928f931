/**
 * TRON's fee model for a withdrawal (spec 1.8, 2.4), to the reference's formulas
 * (`mm2src/coins/eth/tron/fee.rs`, docs/compatibility.md "TRON withdraw"): bandwidth is the size
 * of the signed transaction plus 64 bytes per contract, paid from the sender's free and staked
 * bandwidth and then at `getTransactionFee` SUN a byte; energy (TRC20) is paid from staked energy
 * and then at `getEnergyFee` SUN a unit; a never-activated destination of a TRX transfer costs
 * `getCreateNewAccountFeeInSystemContract`, and its bandwidth (× `getCreateNewAccountBandwidthRate`)
 * comes from staked bandwidth only, else the flat `getCreateAccountFee`. All arithmetic is u64
 * with saturation, as the reference's.
 */
import { encodeTransaction, type TronRawTransaction, encodeRawTransaction } from './tronProtobuf.ts';

/** java-tron's `MAX_RESULT_SIZE_IN_TX`: bandwidth charged per contract for its result. */
const RESULT_BYTES_PER_CONTRACT = 64n;
/** A TRON signature is `r ‖ s ‖ v`: the size is known before signing. */
const SIGNATURE_BYTES = 65;
const U64_MAX = (1n << 64n) - 1n;

/** The sender's resources (`getaccountresource`, proto3 JSON: an absent field is 0). */
export interface TronResources {
  readonly freeNetUsed: bigint;
  readonly freeNetLimit: bigint;
  readonly netUsed: bigint;
  readonly netLimit: bigint;
  readonly energyUsed: bigint;
  readonly energyLimit: bigint;
}

/** Chain prices in SUN (`getchainparameters`). */
export interface TronChainPrices {
  /** `getTransactionFee`: SUN per bandwidth byte. */
  readonly bandwidthPriceSun: bigint;
  /** `getEnergyFee`: SUN per energy unit. */
  readonly energyPriceSun: bigint;
  /** `getCreateNewAccountFeeInSystemContract` (mainnet 1 TRX). */
  readonly createNewAccountFeeSun: bigint;
  /** `getCreateAccountFee` (mainnet 0.1 TRX): paid when staked bandwidth cannot cover a creation. */
  readonly createAccountBandwidthFeeSun: bigint;
  /** `getCreateNewAccountBandwidthRate` (default 1). */
  readonly createNewAccountBandwidthRate: bigint;
}

/** Whether the destination exists; only a TRX transfer to a new account pays the creation fees. */
export type TronDestination =
  | { readonly kind: 'Activated' }
  | { readonly kind: 'NewAccount'; readonly creationFeeSun: bigint; readonly bandwidthFallbackSun: bigint; readonly bandwidthRate: bigint };

/** The fee of one withdrawal; money in SUN, resources in bytes and energy units. */
export interface TronFeeDetails {
  /** The coin paying: the platform (`TRX`), also for a TRC20. */
  readonly coin: string;
  readonly bandwidthUsed: bigint;
  readonly energyUsed: bigint;
  readonly bandwidthFeeSun: bigint;
  readonly energyFeeSun: bigint;
  /** Present only for a TRX transfer to a never-activated account. */
  readonly accountCreationFeeSun?: bigint;
  readonly totalFeeSun: bigint;
}

const sub = (a: bigint, b: bigint) => (a > b ? a - b : 0n);
const add = (a: bigint, b: bigint) => (a + b > U64_MAX ? U64_MAX : a + b);
const mul = (a: bigint, b: bigint) => (a * b > U64_MAX ? U64_MAX : a * b);

/** Free plus staked bandwidth left. */
export const availableBandwidth = (r: TronResources) => add(sub(r.freeNetLimit, r.freeNetUsed), sub(r.netLimit, r.netUsed));
export const availableStakedBandwidth = (r: TronResources) => sub(r.netLimit, r.netUsed);
export const availableEnergy = (r: TronResources) => sub(r.energyLimit, r.energyUsed);

/** Bandwidth the transaction will use: its size signed (placeholder signature) + 64 per contract. */
export function estimateBandwidth(raw: TronRawTransaction): bigint {
  const size = encodeTransaction(encodeRawTransaction(raw), [new Uint8Array(SIGNATURE_BYTES)]).length;
  return BigInt(size) + RESULT_BYTES_PER_CONTRACT;
}

/**
 * The fee details of `raw` (the reference's `estimate_fee_details`): `energyUsed` is 0 for a TRX
 * transfer; a TRC20 transfer always counts its destination as activated (its energy estimate
 * already covers creating the account).
 */
export function estimateFee(raw: TronRawTransaction, energyUsed: bigint, resources: TronResources, prices: TronChainPrices, coin: string, destination: TronDestination): TronFeeDetails {
  return feeForBandwidth(estimateBandwidth(raw), energyUsed, resources, prices, coin, destination);
}

/** {@link estimateFee} for a known bandwidth (the reference's unit tests pin it this way). */
export function feeForBandwidth(bandwidth: bigint, energyUsed: bigint, resources: TronResources, prices: TronChainPrices, coin: string, destination: TronDestination): TronFeeDetails {
  let bandwidthUsed = bandwidth;
  let bandwidthFeeSun: bigint;
  let accountCreationFeeSun = 0n;
  if (destination.kind === 'Activated') {
    bandwidthFeeSun = mul(sub(bandwidthUsed, availableBandwidth(resources)), prices.bandwidthPriceSun);
  } else {
    // Creating an account takes staked bandwidth only (free bandwidth does not count); without
    // enough of it the flat fallback is burnt instead and no bandwidth is used.
    accountCreationFeeSun = destination.creationFeeSun;
    bandwidthUsed = mul(bandwidthUsed, destination.bandwidthRate);
    if (availableStakedBandwidth(resources) >= bandwidthUsed) {
      bandwidthFeeSun = 0n;
    } else {
      bandwidthUsed = 0n;
      bandwidthFeeSun = destination.bandwidthFallbackSun;
    }
  }
  const energyFeeSun = mul(sub(energyUsed, availableEnergy(resources)), prices.energyPriceSun);
  return {
    coin,
    bandwidthUsed,
    energyUsed,
    bandwidthFeeSun,
    energyFeeSun,
    ...(accountCreationFeeSun > 0n ? { accountCreationFeeSun } : {}),
    totalFeeSun: add(add(bandwidthFeeSun, energyFeeSun), accountCreationFeeSun),
  };
}
