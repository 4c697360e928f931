/**
 * The double's EVM transaction signing (`EthereumSignTx`, `EthereumSignTxEIP1559`, as a Trezor One
 * 1.13 does it): the transaction is rebuilt from the message's fields, its signing hash signed with
 * the key at `address_n`, and answered as `EthereumTxRequest` with the signature (legacy: EIP-155 `v`
 * = recovery + 2 × chain id + 35; EIP-1559: `v` = recovery). Data longer than its initial chunk
 * (more than 1024 bytes) is not modelled: `Failure_DataError`.
 */
import { Transaction, getBytes } from 'ethers';
import type { DeviceMessage, Fields } from './codec.ts';
import type { DeviceKeys } from './deviceKeys.ts';

/** The message names this module answers. */
export const ETHEREUM_SIGN_MESSAGES = ['EthereumSignTx', 'EthereumSignTxEIP1559'] as const;

/** A protobuf bytes field (hex, leading zeros stripped, empty for zero) as an integer. */
const integer = (value: unknown): bigint => (typeof value === 'string' && value !== '' ? BigInt(`0x${value}`) : 0n);

/** The signed answer, or `undefined` when the fields do not make a transaction the double signs. */
export function ethereumSignature(keys: DeviceKeys, name: string, fields: Fields, addressN: readonly number[]): DeviceMessage | undefined {
  const data = typeof fields.data_initial_chunk === 'string' ? fields.data_initial_chunk : '';
  if (Number(fields.data_length ?? 0) !== data.length / 2) return undefined;
  const chainId = Number(fields.chain_id);
  if (!Number.isSafeInteger(chainId) || chainId <= 0 || typeof fields.to !== 'string') return undefined;
  const common = { chainId, nonce: Number(integer(fields.nonce)), gasLimit: integer(fields.gas_limit), to: fields.to, value: integer(fields.value), data: `0x${data}` };
  const eip1559 = name === 'EthereumSignTxEIP1559';
  const tx = Transaction.from(
    eip1559
      ? { ...common, type: 2, maxFeePerGas: integer(fields.max_gas_fee), maxPriorityFeePerGas: integer(fields.max_priority_fee) }
      : { ...common, type: 0, gasPrice: integer(fields.gas_price) },
  );
  const { r, s, recovery } = keys.signDigest(addressN, getBytes(tx.unsignedHash));
  return { name: 'EthereumTxRequest', fields: { signature_v: eip1559 ? recovery : recovery + 2 * chainId + 35, signature_r: r, signature_s: s } };
}
