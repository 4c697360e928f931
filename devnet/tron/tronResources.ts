/**
 * Bandwidth and energy of the devnet TRON node's accounts, and what a transaction is charged, the
 * way java-tron's `BandwidthProcessor` and `EnergyProcessor` charge it: bandwidth (the signed
 * transaction's size + 64 per contract) from staked bandwidth, then the daily free 600, else burnt
 * at `getTransactionFee`; creating an account costs `getCreateNewAccountFeeInSystemContract` and
 * its bandwidth from staked bandwidth only, else the flat `getCreateAccountFee`; energy from staked
 * energy, else burnt at `getEnergyFee`. Written apart from the service's estimate on purpose: a
 * broadcast on the double checks that estimate against an independent charge.
 */
import { getAddress } from 'ethers';

/** The chain parameters the double prices with (a subset of mainnet's, mainnet values as of 2024). */
export const DEVNET_PRICES = {
  getTransactionFee: 1_000n,
  getEnergyFee: 210n,
  getCreateNewAccountFeeInSystemContract: 1_000_000n,
  getCreateAccountFee: 100_000n,
  getCreateNewAccountBandwidthRate: 1n,
} as const;

/** java-tron's daily free bandwidth per activated account. */
export const FREE_NET_LIMIT = 600n;
const RESULT_BYTES_PER_CONTRACT = 64n;

/** What a test can set for an account (its staking), and what the double tracks as used. */
export interface TronAccountResources {
  freeNetUsed: bigint;
  netLimit: bigint;
  netUsed: bigint;
  energyLimit: bigint;
  energyUsed: bigint;
}

/** Per-account resources, EIP-55 keyed; an account never seen has used nothing and staked nothing. */
export class TronResourceBook {
  readonly #accounts = new Map<string, TronAccountResources>();

  of(address: string): TronAccountResources {
    const key = getAddress(address);
    let entry = this.#accounts.get(key);
    if (entry === undefined) this.#accounts.set(key, (entry = { freeNetUsed: 0n, netLimit: 0n, netUsed: 0n, energyLimit: 0n, energyUsed: 0n }));
    return entry;
  }

  /** Sets staked limits or used amounts (a test's "freeze" or "spend"). */
  set(address: string, values: Partial<TronAccountResources>): void {
    Object.assign(this.of(address), values);
  }

  /** `getaccountresource` of an activated account (java-tron's field names; zero fields omitted). */
  answer(address: string): Record<string, bigint> {
    const r = this.of(address);
    const fields: Record<string, bigint> = {
      freeNetUsed: r.freeNetUsed,
      freeNetLimit: FREE_NET_LIMIT,
      NetUsed: r.netUsed,
      NetLimit: r.netLimit,
      EnergyUsed: r.energyUsed,
      EnergyLimit: r.energyLimit,
      TotalNetLimit: 43_200_000_000n,
      TotalNetWeight: 84_593_524_300n,
      TotalEnergyLimit: 180_000_000_000n,
      TotalEnergyWeight: 12_345_678_000n,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== 0n));
  }

  /**
   * Charges `sender` for a transaction of `signedBytes` bytes with `contracts` contracts, creating
   * an account or not, using `energy`: consumes resources and returns the SUN burnt.
   */
  charge(sender: string, signedBytes: bigint, contracts: bigint, createsAccount: boolean, energy: bigint): bigint {
    const r = this.of(sender);
    const bytes = signedBytes + RESULT_BYTES_PER_CONTRACT * contracts;
    let burnt = 0n;
    if (createsAccount) {
      burnt += DEVNET_PRICES.getCreateNewAccountFeeInSystemContract;
      const needed = bytes * DEVNET_PRICES.getCreateNewAccountBandwidthRate;
      if (r.netLimit - r.netUsed >= needed) r.netUsed += needed;
      else burnt += DEVNET_PRICES.getCreateAccountFee;
    } else if (r.netLimit - r.netUsed >= bytes) {
      r.netUsed += bytes;
    } else if (FREE_NET_LIMIT - r.freeNetUsed >= bytes) {
      r.freeNetUsed += bytes;
    } else {
      burnt += bytes * DEVNET_PRICES.getTransactionFee;
    }
    const stakedEnergy = r.energyLimit - r.energyUsed;
    const fromStake = energy < stakedEnergy ? energy : stakedEnergy > 0n ? stakedEnergy : 0n;
    r.energyUsed += fromStake;
    return burnt + (energy - fromStake) * DEVNET_PRICES.getEnergyFee;
  }
}
