/**
 * The refusals of a TRON withdrawal (the reference's `WithdrawError` variants, spec 2.7), each
 * built in one place. Messages name the field or the coin, never a key.
 */
import { ActivationError, ErrorType, errorSentence } from '../../../spec/errors.ts';

/**
 * `available`/`required` as decimal strings of `coin`. `forFee`: the platform coin is short of a
 * token transfer's fee; spec 2.7 names that coin in `NotSufficientBalance` (the reference answers
 * `NotSufficientPlatformBalanceForFee` with the same payload; docs/compatibility.md §11, TRON withdraw).
 */
export function notSufficientBalance(coin: string, available: string, required: string, forFee = false): ActivationError {
  const what = forFee ? `${coin} balance is too low for the fee` : `Not enough ${coin}`;
  return new ActivationError(ErrorType.NotSufficientBalance, `${what}: available ${available}, required ${required}`, { coin, available, required });
}

export function zeroBalanceToWithdrawMax(): ActivationError {
  return new ActivationError(ErrorType.ZeroBalanceToWithdrawMax, 'Balance is zero');
}

export function amountTooLow(amount: string, threshold: string): ActivationError {
  return new ActivationError(ErrorType.AmountTooLow, `The amount ${amount} is too low: the fee is ${threshold}`, { amount, threshold });
}

export const internalError = (message: string) => errorSentence(ErrorType.InternalError, message);
export const invalidAddress = (message: string) => errorSentence(ErrorType.InvalidAddress, message);
export const invalidFeePolicy = (message: string) => errorSentence(ErrorType.InvalidFeePolicy, message);
export const unsupported = (message: string) => errorSentence(ErrorType.UnsupportedError, message);
