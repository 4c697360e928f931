/**
 * The gas and fee of an EVM withdrawal (the reference's `eth.rs` `get_eth_gas_details_from_withdraw_fee`,
 * `get_gas_price`): `EthGas` as given; `EthGasEip1559` as given, its gas estimated when absent; no
 * fee: a legacy transaction at max(`eth_gasPrice`, base fee × 1.13), gas estimated with no margin.
 */
import { ActivationError, ErrorType, errorSentence } from '../../../spec/errors.ts';
import { formatAmount } from '../../../spec/amount.ts';
import type { EthereumTxToSign } from '../../../actors/ports/withdraw.ts';
import type { EvmFeePolicy } from './evmWithdrawChecks.ts';
import type { Estimate } from './evmWithdrawReads.ts';

/** The reference's `BASE_BLOCK_FEE_DIFF_PCT`: the legacy price covers a base fee rise of 13 %. */
const BASE_FEE_MARGIN_PCT = 113n;
/** Gas of a plain transfer: the least any transaction costs (the reference's "amount too low" threshold). */
export const TRANSFER_GAS = 21_000n;

/** How a withdrawal pays: the transaction's fee fields, its gas limit, and the most it can cost per gas. */
export interface EvmGas {
  readonly fee: EthereumTxToSign['fee'];
  readonly gas: bigint | undefined;
  /** Legacy: the price; EIP-1559: the max fee per gas (what the fee details and balance checks use). */
  readonly pricePerGas: bigint;
}

/** The fee fields before the gas is known (`gas` undefined: it is estimated). */
export function gasOf(policy: EvmFeePolicy, gasPrice: bigint | undefined, baseFee: bigint | undefined): EvmGas {
  switch (policy.kind) {
    case 'EthGas':
      return { fee: { type: 'legacy', gasPrice: policy.gasPriceWei }, gas: policy.gas, pricePerGas: policy.gasPriceWei };
    case 'EthGasEip1559':
      return {
        fee: { type: 'eip1559', maxFeePerGas: policy.maxFeePerGasWei, maxPriorityFeePerGas: policy.maxPriorityFeePerGasWei },
        gas: policy.gas,
        pricePerGas: policy.maxFeePerGasWei,
      };
    case 'Auto': {
      if (gasPrice === undefined) throw new ActivationError(ErrorType.InternalError, 'the gas price was not read');
      const fromBase = baseFee === undefined ? 0n : (baseFee * BASE_FEE_MARGIN_PCT) / 100n;
      const price = fromBase > gasPrice ? fromBase : gasPrice;
      return { fee: { type: 'legacy', gasPrice: price }, gas: undefined, pricePerGas: price };
    }
  }
}

/**
 * The estimated gas, or the reference's error for the node's refusal: "insufficient funds" is
 * `AmountTooLow` (threshold: a plain transfer's fee), a fee cap under the base fee `InvalidFee`,
 * anything else `Transport` with the node's words.
 */
export function estimatedGas(estimate: Estimate | undefined, value: bigint, pricePerGas: bigint, decimals: number): bigint {
  if (estimate === undefined) throw new ActivationError(ErrorType.InternalError, 'the gas was not estimated');
  if ('gas' in estimate) return estimate.gas;
  const text = estimate.refused;
  if (/insufficient funds|exceeds allowance/i.test(text)) {
    throw new ActivationError(ErrorType.AmountTooLow, `The amount is too low to pay for gas: ${text}`, {
      amount: formatAmount(value, decimals),
      threshold: formatAmount(TRANSFER_GAS * pricePerGas, decimals),
    });
  }
  if (/fee cap less than block base fee/i.test(text)) throw new ActivationError(ErrorType.InvalidFee, text, { reason: text });
  throw errorSentence(ErrorType.Transport, `the node could not estimate the gas: ${text}`);
}
