/**
 * The node answers a TRON withdrawal reads, checked as the reference checks them
 * (`mm2src/coins/eth/tron/api.rs`): anything malformed is a {@link TronNodeError}, so failover
 * asks the next node.
 */
import { int64, TronNodeError, type TronJson } from '../tronHttp.ts';
import type { TronChainPrices, TronResources } from './tronFee.ts';

/** The block a transaction references (TAPOS) and takes its timestamp from. */
export interface TaposBlock {
  readonly number: bigint;
  /** The 32-byte `blockID`. */
  readonly id: Uint8Array;
  /** Milliseconds since the epoch. */
  readonly timestamp: bigint;
}

/** `getnowblock`: `blockID` (32 bytes hex), a non-negative number and a positive timestamp. */
export function taposBlock(answer: TronJson): TaposBlock {
  const id = answer['blockID'];
  const raw = (answer['block_header'] as { raw_data?: { number?: unknown; timestamp?: unknown } } | undefined)?.raw_data;
  const number = int64(raw?.number);
  const timestamp = int64(raw?.timestamp);
  if (typeof id !== 'string' || !/^(?:0x)?[0-9a-fA-F]{64}$/.test(id)) throw new TronNodeError('getnowblock: blockID is not 32 bytes of hex');
  if (number === undefined || number < 0n) throw new TronNodeError('getnowblock: invalid block number');
  if (timestamp === undefined || timestamp <= 0n) throw new TronNodeError('getnowblock: invalid block timestamp');
  return { number, id: Buffer.from(id.replace(/^0x/, ''), 'hex'), timestamp };
}

/** `getaccountresource` (proto3 JSON: absent fields are 0; `{}` for a new account). */
export function accountResources(answer: TronJson): TronResources {
  const field = (key: string): bigint => {
    const value = answer[key] === undefined ? 0n : int64(answer[key]);
    if (value === undefined || value < 0n) throw new TronNodeError(`getaccountresource: ${key} is not a non-negative integer`);
    return value;
  };
  return {
    freeNetUsed: field('freeNetUsed'),
    freeNetLimit: field('freeNetLimit'),
    netUsed: field('NetUsed'),
    netLimit: field('NetLimit'),
    energyUsed: field('EnergyUsed'),
    energyLimit: field('EnergyLimit'),
  };
}

/**
 * `getchainparameters`: `getTransactionFee` and `getEnergyFee` are required and non-zero; the two
 * account-creation fees default to 0 and `getCreateNewAccountBandwidthRate` to 1 when absent.
 */
export function chainPrices(answer: TronJson): TronChainPrices {
  const entries = answer['chainParameter'] ?? answer['chain_parameter'];
  if (!Array.isArray(entries)) throw new TronNodeError('getchainparameters: no chainParameter list');
  const values = new Map<string, bigint>();
  for (const entry of entries as { key?: unknown; value?: unknown }[]) {
    const value = int64(entry?.value);
    if (typeof entry?.key === 'string' && value !== undefined && value >= 0n) values.set(entry.key, value);
  }
  const bandwidthPriceSun = values.get('getTransactionFee') ?? 0n;
  const energyPriceSun = values.get('getEnergyFee') ?? 0n;
  if (bandwidthPriceSun === 0n || energyPriceSun === 0n) {
    throw new TronNodeError('getchainparameters: getTransactionFee and getEnergyFee must be present and greater than zero');
  }
  const rate = values.get('getCreateNewAccountBandwidthRate') ?? 0n;
  return {
    bandwidthPriceSun,
    energyPriceSun,
    createNewAccountFeeSun: values.get('getCreateNewAccountFeeInSystemContract') ?? 0n,
    createAccountBandwidthFeeSun: values.get('getCreateAccountFee') ?? 0n,
    createNewAccountBandwidthRate: rate > 0n ? rate : 1n,
  };
}

/** `getaccount`: `{}` is a never-activated account; an account object has `address`. */
export function accountExists(answer: TronJson): boolean {
  if (typeof answer['address'] === 'string') return true;
  if (Object.keys(answer).length === 0) return false;
  throw new TronNodeError('getaccount: neither an account nor {}');
}

/** `triggerconstantcontract` of `transfer(address,uint256)`: its `energy_used`, which must be > 0. */
export function transferEnergy(answer: TronJson): bigint {
  const energy = int64(answer['energy_used']);
  if (energy === undefined || energy <= 0n) throw new TronNodeError('triggerconstantcontract: no energy_used for the TRC20 transfer');
  return energy;
}

/** `triggerconstantcontract` of `balanceOf(address)`: the first 32-byte word of `constant_result`. */
export function tokenBalance(answer: TronJson): bigint {
  const word = (answer['constant_result'] as unknown[] | undefined)?.[0];
  if (typeof word !== 'string' || !/^[0-9a-fA-F]{64}/.test(word)) throw new TronNodeError('triggerconstantcontract: balanceOf returned no 32-byte value');
  return BigInt(`0x${word.slice(0, 64)}`);
}
