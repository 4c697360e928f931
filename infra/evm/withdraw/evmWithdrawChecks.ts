/**
 * What an EVM withdrawal checks before it reads the chain (docs/compatibility.md §23, the
 * reference's `eth.rs` `valid_addr_from_str`, `get_eth_gas_details_from_withdraw_fee`): the
 * recipient in its exact EIP-55 form, a fee type that fits, EIP-1559 allowed by the coin, and no
 * field the chain cannot carry.
 */
import { getAddress } from 'ethers';
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../../../spec/errors.ts';
import type { FeePolicy, WithdrawOrder } from '../../../spec/withdraw.ts';

const invalidAddress = (message: string) => errorSentence(ErrorType.InvalidAddress, message);

/** The recipient exactly as EIP-55 writes it (an all-lowercase address is refused too, as the reference does). */
export function checkRecipient(to: string): string {
  if (!to.startsWith('0x')) throw invalidAddress(`Invalid address ${to}: Address must be prefixed with 0x`);
  let checksummed: string;
  try {
    checksummed = getAddress(to.toLowerCase());
  } catch {
    throw invalidAddress(`Invalid address ${to}: not 20 bytes of hex`);
  }
  if (checksummed !== to) throw invalidAddress(`Invalid address checksum: ${to} (its EIP-55 form is ${checksummed})`);
  return to;
}

/** The fee policies an EVM coin takes. */
export type EvmFeePolicy = Extract<FeePolicy, { kind: 'Auto' | 'EthGas' | 'EthGasEip1559' }>;

/**
 * The order's fee policy if it fits an EVM coin, else `InvalidFeePolicy` naming what fits;
 * EIP-1559 needs the coins entry's `max_eth_tx_type` of at least 2 (the reference's gate).
 */
export function checkEvmFee(order: WithdrawOrder, entry: Readonly<Record<string, unknown>>): EvmFeePolicy {
  const fee = order.fee;
  if (fee.kind !== 'Auto' && fee.kind !== 'EthGas' && fee.kind !== 'EthGasEip1559') {
    throw errorSentence(ErrorType.InvalidFeePolicy, `Expected 'EthGas' or 'EthGasEip1559' fee type, found '${fee.kind}'`);
  }
  if (fee.kind === 'EthGasEip1559') {
    const maxType = entry.max_eth_tx_type;
    if (typeof maxType !== 'number' || maxType < 2) {
      throw new ActivationError(ErrorType.TxTypeNotSupported, `EIP-1559 transactions are not enabled for ${order.coin}: its coins entry needs max_eth_tx_type 2 (it has ${String(maxType ?? 'none')})`);
    }
  }
  return fee;
}

/** Fields an EVM transaction cannot carry are refused by name. */
export function checkEvmFields(order: WithdrawOrder): void {
  if (order.memo !== undefined) throw errorSentence(ErrorType.InvalidMemo, 'memo: an EVM transfer carries no memo');
  if (order.expirationSeconds !== undefined) throw invalidRequest('params.expiration_seconds: applies to TRON transactions only; an EVM transaction does not expire');
}
