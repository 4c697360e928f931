/**
 * A withdrawal request as rpc/ hands it over (domain names, amounts still decimal text), and how
 * it becomes a {@link WithdrawOrder} against the active coin: the amount and fee in integer units,
 * the sender resolved (`withdrawSender.ts`). Every check here runs before anything is signed.
 */
import { ActivationError, ErrorType, invalidRequest } from '../spec/errors.ts';
import { formatAmount, parseAmount } from '../spec/amount.ts';
import type { FeePolicy, WithdrawFrom, WithdrawOrder, WithdrawSender } from '../spec/withdraw.ts';

/** Gwei → wei: EVM fee prices arrive in gwei. */
const GWEI_DECIMALS = 9;

/** The fee of a request, in domain names with the wire's decimal text (rpc/ checked which fields each kind has). */
export type FeeRequest =
  | { readonly kind: 'Auto' }
  | { readonly kind: 'UtxoFixed' | 'UtxoPerKbyte'; readonly amount: string }
  | { readonly kind: 'EthGas'; readonly gasPriceGwei: string; readonly gas: number }
  | { readonly kind: 'EthGasEip1559'; readonly maxFeePerGasGwei: string; readonly maxPriorityFeePerGasGwei: string; readonly gas: number | undefined }
  | { readonly kind: 'Qrc20Gas'; readonly gasLimit: number; readonly gasPrice: string }
  | { readonly kind: 'CosmosGas' };

/** A withdrawal as the methods take it (`withdraw`, `task::withdraw::init`). */
export interface WithdrawCommand {
  readonly ticker: string;
  readonly to: string;
  /** Decimal text in the coin's units; `undefined` with `max`. */
  readonly amount: string | undefined;
  readonly max: boolean;
  readonly fee: FeeRequest;
  readonly from?: WithdrawFrom;
  readonly memo?: string;
  readonly expirationSeconds?: number;
}

/** `text` at `decimals`, or `InvalidRequest` naming `field` (more decimals than the unit has). */
function units(field: string, text: string, decimals: number): bigint {
  try {
    return parseAmount(text, decimals);
  } catch {
    throw invalidRequest(`${field}: ${text} has more than ${decimals} decimals, the smallest unit it can express`);
  }
}

/** The fee policy in integer units (`decimals`: the coin's, for UTXO rates). */
export function feePolicyOf(fee: FeeRequest, decimals: number): FeePolicy {
  switch (fee.kind) {
    case 'UtxoFixed':
    case 'UtxoPerKbyte':
      return { kind: fee.kind, amount: units('fee.amount', fee.amount, decimals) };
    case 'EthGas':
      return { kind: 'EthGas', gasPriceWei: units('fee.gas_price', fee.gasPriceGwei, GWEI_DECIMALS), gas: BigInt(fee.gas) };
    case 'EthGasEip1559': {
      const maxFeePerGasWei = units('fee.max_fee_per_gas', fee.maxFeePerGasGwei, GWEI_DECIMALS);
      const maxPriorityFeePerGasWei = units('fee.max_priority_fee_per_gas', fee.maxPriorityFeePerGasGwei, GWEI_DECIMALS);
      if (maxPriorityFeePerGasWei > maxFeePerGasWei) {
        throw new ActivationError(ErrorType.InvalidFee, 'max_priority_fee_per_gas is above max_fee_per_gas', { reason: 'max_priority_fee_per_gas is above max_fee_per_gas' });
      }
      return { kind: 'EthGasEip1559', maxFeePerGasWei, maxPriorityFeePerGasWei, gas: fee.gas === undefined ? undefined : BigInt(fee.gas) };
    }
    case 'Qrc20Gas':
      return { kind: 'Qrc20Gas', gasLimit: BigInt(fee.gasLimit), gasPrice: units('fee.gas_price', fee.gasPrice, 0) };
    default:
      return fee;
  }
}

/** The amount in the coin's smallest unit, or `max`; a zero amount moves nothing: `AmountTooLow`. */
export function amountOf(command: WithdrawCommand, decimals: number): bigint | 'max' {
  if (command.max) return 'max';
  if (command.amount === undefined) throw invalidRequest('params.amount: required unless max is true');
  const amount = units('amount', command.amount, decimals);
  if (amount <= 0n) {
    throw new ActivationError(ErrorType.AmountTooLow, `The amount ${command.amount} is too low: a withdrawal moves at least one smallest unit`, {
      amount: formatAmount(amount, decimals),
      threshold: formatAmount(1n, decimals),
    });
  }
  return amount;
}

/** The order for an active coin's family. */
export function withdrawOrder(command: WithdrawCommand, decimals: number, feeDecimals: number, sender: WithdrawSender): WithdrawOrder {
  return {
    coin: command.ticker,
    to: command.to,
    amount: amountOf(command, decimals),
    fee: feePolicyOf(command.fee, feeDecimals),
    sender,
    ...(command.memo === undefined ? {} : { memo: command.memo }),
    ...(command.expirationSeconds === undefined ? {} : { expirationSeconds: command.expirationSeconds }),
  };
}
