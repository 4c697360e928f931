/**
 * The error vocabulary of the interface (spec §7, docs/compatibility.md §3) and the one error class every
 * layer throws. Only `rpc/` turns an {@link ActivationError} into a wire envelope.
 */

/** Every `error_type` the service can answer with. */
export const ErrorType = {
  // spec 7.1
  PlatformIsAlreadyActivated: 'PlatformIsAlreadyActivated',
  PlatformConfigIsNotFound: 'PlatformConfigIsNotFound',
  CoinProtocolParseError: 'CoinProtocolParseError',
  UnexpectedPlatformProtocol: 'UnexpectedPlatformProtocol',
  TokenConfigIsNotFound: 'TokenConfigIsNotFound',
  TokenProtocolParseError: 'TokenProtocolParseError',
  UnexpectedTokenProtocol: 'UnexpectedTokenProtocol',
  PlatformCoinCreationError: 'PlatformCoinCreationError',
  PrivKeyNotAllowed: 'PrivKeyNotAllowed',
  UnexpectedDerivationMethod: 'UnexpectedDerivationMethod',
  InternalError: 'InternalError',
  Transport: 'Transport',
  InvalidRequest: 'InvalidRequest',
  TaskFinished: 'TaskFinished',
  NoSuchTask: 'NoSuchTask',
  NotSufficientBalance: 'NotSufficientBalance',
  InvalidFeePolicy: 'InvalidFeePolicy',
  // task failures (spec 3.2)
  TaskTimedOut: 'TaskTimedOut',
  CoinCreationError: 'CoinCreationError',
  HwError: 'HwError',
  // envelope and auth (docs/compatibility.md §1–§4)
  PlatformCoinMismatch: 'PlatformCoinMismatch',
  AtLeastOneNodeRequired: 'AtLeastOneNodeRequired',
  InvalidMmRpcVersion: 'InvalidMmRpcVersion',
  NoSuchMethod: 'NoSuchMethod',
  UserpassIsNotSet: 'UserpassIsNotSet',
  UserpassIsInvalid: 'UserpassIsInvalid',
  Banned: 'Banned',
  // legacy-only conditions (answered as `{"error": message}`)
  NoSuchCoin: 'NoSuchCoin',
  CoinIsAlreadyActivated: 'CoinIsAlreadyActivated',
  // `enable_erc20` (docs/compatibility.md §18; the reference's `EnableTokenError`)
  TokenIsAlreadyActivated: 'TokenIsAlreadyActivated',
  PlatformCoinIsNotActivated: 'PlatformCoinIsNotActivated',
  UnsupportedPlatformCoin: 'UnsupportedPlatformCoin',
  // streaming enables (docs/compatibility.md §19)
  EnableError: 'EnableError',
  // standalone-coin tasks (the reference's init_standalone_coin_error.rs)
  CoinConfigIsNotFound: 'CoinConfigIsNotFound',
  UnexpectedCoinProtocol: 'UnexpectedCoinProtocol',
  // `stream::balance::enable` and `stream::disable` (docs/compatibility.md §20; the reference's `BalanceStreamingRequestError`, `DisableStreamingRequestError`)
  CoinNotFound: 'CoinNotFound',
  CoinNotSupported: 'CoinNotSupported',
  DisableError: 'DisableError',
  // `account_balance` and `task::account_balance::*` (docs/compatibility.md §21; the reference's `HDAccountBalanceRpcError`)
  CoinIsActivatedNotWithHDWallet: 'CoinIsActivatedNotWithHDWallet',
  UnknownAccount: 'UnknownAccount',
  // `my_tx_history` v2 (docs/compatibility.md §22; the reference's `MyTxHistoryErrorV2`)
  CoinIsNotActive: 'CoinIsNotActive',
  InvalidTarget: 'InvalidTarget',
  NotSupportedFor: 'NotSupportedFor',
  StorageIsNotInitialized: 'StorageIsNotInitialized',
  // withdraw, `task::withdraw::*`, `send_raw_transaction` (docs/compatibility.md §23; the reference's `WithdrawError`)
  NotSufficientPlatformBalanceForFee: 'NotSufficientPlatformBalanceForFee',
  ZeroBalanceToWithdrawMax: 'ZeroBalanceToWithdrawMax',
  AmountTooLow: 'AmountTooLow',
  InvalidAddress: 'InvalidAddress',
  InvalidFee: 'InvalidFee',
  InvalidMemo: 'InvalidMemo',
  FromAddressNotFound: 'FromAddressNotFound',
  UnexpectedFromAddress: 'UnexpectedFromAddress',
  UnexpectedUserAction: 'UnexpectedUserAction',
  CoinDoesntSupportInitWithdraw: 'CoinDoesntSupportInitWithdraw',
  UnsupportedError: 'UnsupportedError',
  ActionNotAllowed: 'ActionNotAllowed',
  SigningError: 'SigningError',
  TxTypeNotSupported: 'TxTypeNotSupported',
  NoChainIdSet: 'NoChainIdSet',
  Timeout: 'Timeout',
  /** `send_raw_transaction` of a transaction whose nonce a broadcast of this service already used (no silent replacement). */
  NonceAlreadyUsed: 'NonceAlreadyUsed',
  // `get_new_address` and `task::get_new_address::*` (docs/compatibility.md §24; the reference's `GetNewAddressRpcError`)
  EmptyAddressesLimitReached: 'EmptyAddressesLimitReached',
  AddressLimitReached: 'AddressLimitReached',
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** HTTP status per error type (docs/compatibility.md §3). Legacy answers are always 500. */
export const HTTP_STATUS: Readonly<Record<ErrorType, number>> = {
  PlatformIsAlreadyActivated: 400,
  PlatformConfigIsNotFound: 400,
  TokenConfigIsNotFound: 400,
  UnexpectedPlatformProtocol: 400,
  UnexpectedTokenProtocol: 400,
  PlatformCoinMismatch: 400,
  InvalidRequest: 400,
  InvalidMmRpcVersion: 400,
  NoSuchMethod: 400,
  AtLeastOneNodeRequired: 400,
  NoSuchTask: 400,
  TaskFinished: 409,
  UserpassIsNotSet: 403,
  UserpassIsInvalid: 403,
  Banned: 403,
  CoinProtocolParseError: 500,
  TokenProtocolParseError: 500,
  PlatformCoinCreationError: 500,
  PrivKeyNotAllowed: 500,
  UnexpectedDerivationMethod: 500,
  InternalError: 500,
  TaskTimedOut: 500,
  CoinCreationError: 500,
  HwError: 500,
  NotSufficientBalance: 400,
  InvalidFeePolicy: 400,
  Transport: 502,
  NoSuchCoin: 500,
  CoinIsAlreadyActivated: 500,
  TokenIsAlreadyActivated: 400,
  PlatformCoinIsNotActivated: 400,
  UnsupportedPlatformCoin: 500,
  EnableError: 400,
  CoinConfigIsNotFound: 400,
  UnexpectedCoinProtocol: 400,
  CoinNotFound: 404,
  CoinNotSupported: 501,
  DisableError: 400,
  CoinIsActivatedNotWithHDWallet: 400,
  UnknownAccount: 400,
  CoinIsNotActive: 404,
  InvalidTarget: 400,
  NotSupportedFor: 400,
  StorageIsNotInitialized: 500,
  NotSufficientPlatformBalanceForFee: 400,
  ZeroBalanceToWithdrawMax: 400,
  AmountTooLow: 400,
  InvalidAddress: 400,
  InvalidFee: 400,
  InvalidMemo: 400,
  FromAddressNotFound: 400,
  UnexpectedFromAddress: 400,
  UnexpectedUserAction: 400,
  CoinDoesntSupportInitWithdraw: 400,
  UnsupportedError: 400,
  ActionNotAllowed: 400,
  SigningError: 400,
  TxTypeNotSupported: 400,
  NoChainIdSet: 400,
  Timeout: 408,
  NonceAlreadyUsed: 400,
  EmptyAddressesLimitReached: 400,
  AddressLimitReached: 400,
};

export interface ActivationErrorOptions {
  /** Overrides the type's default status (e.g. `NoSuchTask` is 404 on `cancel`). */
  readonly httpStatus?: number;
  readonly cause?: unknown;
  /** Extra top-level fields of a legacy error body (e.g. `orders` on `disable_coin`). */
  readonly legacyFields?: Readonly<Record<string, unknown>>;
}

/**
 * The single error class of the service. `data` is the spec's `error_data`; `undefined` means the
 * variant carries nothing and the envelope omits the key. Narrow with `errorType`, never the message.
 */
export class ActivationError extends Error {
  readonly errorType: ErrorType;
  readonly data: unknown;
  readonly httpStatus: number;
  readonly legacyFields: Readonly<Record<string, unknown>> | undefined;

  constructor(errorType: ErrorType, message: string, data?: unknown, options: ActivationErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ActivationError';
    this.errorType = errorType;
    this.data = data;
    this.httpStatus = options.httpStatus ?? HTTP_STATUS[errorType];
    this.legacyFields = options.legacyFields;
  }

  /** Plain, secret-free form used in events and task status. */
  toJSON(): { errorType: ErrorType; message: string; data?: unknown } {
    return this.data === undefined
      ? { errorType: this.errorType, message: this.message }
      : { errorType: this.errorType, message: this.message, data: this.data };
  }
}

/**
 * An error whose `error` and `error_data` are the same sentence: how most refusals are reported
 * (a legacy method shows only the sentence).
 */
export function errorSentence(errorType: ErrorType, message: string, options?: ActivationErrorOptions): ActivationError {
  return new ActivationError(errorType, message, message, options);
}

/** Type guard that survives module duplication (checks the brand, not the prototype). */
export function isActivationError(e: unknown): e is ActivationError {
  return e instanceof ActivationError || (e instanceof Error && e.name === 'ActivationError' && 'errorType' in e);
}

/** Wraps an unknown failure as `InternalError` without leaking its details beyond the message. */
export function toActivationError(e: unknown): ActivationError {
  if (isActivationError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new ActivationError(ErrorType.InternalError, message, undefined, { cause: e });
}

/** `InvalidRequest` whose `error` and `error_data` are the same sentence (the reference's form). */
export function invalidRequest(message: string): ActivationError {
  return errorSentence(ErrorType.InvalidRequest, message);
}
