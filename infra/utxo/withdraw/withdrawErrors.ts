/**
 * A refused UTXO or QRC20 withdrawal as the spec's error (spec 2.7; the reference's `WithdrawError`
 * variants and their `Display` texts, KDF `lp_coins.rs`): amounts as exact decimal strings of
 * the coin whose balance is meant.
 */
import { formatAmount } from '../../../spec/amount.ts';
import { ActivationError, ErrorType, errorSentence } from '../../../spec/errors.ts';
import type { UtxoWithdrawFailure } from './utxoWithdraw.ts';

export function withdrawError(refusal: UtxoWithdrawFailure, ticker: string, decimals: number): ActivationError {
  switch (refusal.failure) {
    case 'InvalidAddress':
      return errorSentence(ErrorType.InvalidAddress, refusal.message);
    case 'Unsupported':
      return errorSentence(ErrorType.UnsupportedError, refusal.message);
    case 'InvalidFee':
      return new ActivationError(ErrorType.InvalidFee, `Invalid fee: ${refusal.message}`, { reason: refusal.message });
    case 'ZeroBalanceToWithdrawMax':
      return new ActivationError(ErrorType.ZeroBalanceToWithdrawMax, 'Balance is zero');
    case 'AmountTooLow': {
      const data = { amount: formatAmount(refusal.amount, decimals), threshold: formatAmount(refusal.threshold, decimals) };
      return new ActivationError(ErrorType.AmountTooLow, `The amount ${data.amount} is too small, required at least ${data.threshold}`, data);
    }
    case 'NotSufficientBalance': {
      const coin = refusal.coin ?? ticker;
      const scale = refusal.decimals ?? decimals;
      const data = { coin, available: formatAmount(refusal.available, scale), required: formatAmount(refusal.required, scale) };
      return new ActivationError(ErrorType.NotSufficientBalance, `Not enough ${coin} to withdraw: available ${data.available}, required at least ${data.required}`, data);
    }
  }
}
