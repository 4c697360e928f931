/**
 * The refusals of a TRON withdrawal (the reference's `WithdrawError` variants), each built in one
 * place. Messages name the field or the coin, never a key.
 */

/** Placeholder until the withdraw seam's error types land (replaced by ActivationError). */
export class TronWithdrawRefusal extends Error {
  override name = 'TronWithdrawRefusal';
  constructor(readonly errorType: string, message: string, readonly data?: unknown) {
    super(message);
  }
}

/** `available`/`required` as decimal strings of `coin`. `forFee`: the platform coin short of the fee. */
export function notSufficientBalance(coin: string, available: string, required: string, forFee = false): TronWithdrawRefusal {
  const what = forFee ? `${coin} balance is too low for the fee` : `Not enough ${coin}`;
  return new TronWithdrawRefusal('NotSufficientBalance', `${what}: available ${available}, required ${required}`, { coin, available, required });
}

export function zeroBalanceToWithdrawMax(): TronWithdrawRefusal {
  return new TronWithdrawRefusal('ZeroBalanceToWithdrawMax', 'Balance is zero');
}

export function amountTooLow(amount: string, threshold: string): TronWithdrawRefusal {
  return new TronWithdrawRefusal('AmountTooLow', `The amount ${amount} is too low: the fee is ${threshold}`, { amount, threshold });
}

export function internalError(message: string): TronWithdrawRefusal {
  return new TronWithdrawRefusal('InternalError', message, message);
}

export function invalidAddress(message: string): TronWithdrawRefusal {
  return new TronWithdrawRefusal('InvalidAddress', message, message);
}

export function invalidFeePolicy(message: string): TronWithdrawRefusal {
  return new TronWithdrawRefusal('InvalidFeePolicy', message, message);
}

export function unsupported(message: string): TronWithdrawRefusal {
  return new TronWithdrawRefusal('UnsupportedError', message, message);
}
