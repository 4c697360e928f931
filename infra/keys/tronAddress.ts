/**
 * TRON addresses (docs/compatibility.md §6): `0x41 ‖ 20 bytes`, shown as base58check (`T…`, "visible") or
 * as 42 hex digits (`41…`). The 20 bytes are the same account id as the EVM address of the key.
 */
import { getAddress, hexlify } from 'ethers';
import { decodeBase58Check, encodeBase58Check } from './base58check.ts';

const TRON_PREFIX = 0x41;
const TRON_HEX = /^(?:0x)?41([0-9a-fA-F]{40})$/;
const EVM_HEX = /^0x([0-9a-fA-F]{40})$/;

/**
 * The EIP-55 EVM address behind a TRON address given as base58 (`T…`), TRON hex (`41…`, with or
 * without `0x`) or plain EVM hex (`0x` + 40 digits). `undefined` for anything else (never throws).
 */
export function tronToEvmAddress(address: string): string | undefined {
  const hex = TRON_HEX.exec(address) ?? EVM_HEX.exec(address);
  if (hex?.[1] !== undefined) return getAddress(`0x${hex[1]}`);
  const payload = decodeBase58Check(address);
  if (payload?.length !== 21 || payload[0] !== TRON_PREFIX) return undefined;
  return getAddress(hexlify(payload.slice(1)));
}

/** TRON hex form (`41` + 40 lowercase digits) of an EVM address. */
export function evmToTronHex(evmAddress: string): string {
  return `41${getAddress(evmAddress).slice(2).toLowerCase()}`;
}

/** TRON base58check form (`T…`) of an EVM address. */
export function evmToTronBase58(evmAddress: string): string {
  const payload = new Uint8Array(21);
  payload[0] = TRON_PREFIX;
  payload.set(Buffer.from(getAddress(evmAddress).slice(2), 'hex'), 1);
  return encodeBase58Check(payload);
}
