/** Parameter checks for Electrum methods, with ElectrumX's error messages. */
import { badRequest, ELECTRUM_ERROR_CODES, ElectrumError } from './electrumErrors.ts';

const HASH_HEX = /^[0-9a-fA-F]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Positional params with `min..max` entries (missing optional ones are undefined); more is -32602, as aiorpcx answers. */
export function positional(params: readonly unknown[], min: number, max: number): unknown[] {
  if (params.length < min || params.length > max) {
    throw new ElectrumError(ELECTRUM_ERROR_CODES.invalidParams, `invalid arguments: expected ${min === max ? min : `${min} to ${max}`}, got ${params.length}`);
  }
  return [...params];
}

export function nonNegativeInteger(value: unknown): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number) && number >= 0) return number;
  throw badRequest(`${String(value)} should be a non-negative integer`);
}

export function booleanParam(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  throw badRequest(`"${name}" must be a boolean`);
}

/** A txid as displayed (64 hex), lower-cased. */
export function txHash(value: unknown): string {
  if (typeof value === 'string' && HASH_HEX.test(value)) return value.toLowerCase();
  throw badRequest(`${String(value)} should be a transaction hash`);
}

export function scriptHash(value: unknown): string {
  if (typeof value === 'string' && HASH_HEX.test(value)) return value.toLowerCase();
  throw badRequest(`${String(value)} is not a valid script hash`);
}

export function hexString(value: unknown): string {
  if (typeof value === 'string' && HEX.test(value)) return value;
  throw badRequest(`${String(value)} should be a hex string`);
}
