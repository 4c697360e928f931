/**
 * `HwError`s of the hardware port. `error_data` is `{ kind, code? }`: `kind` tells the user what to
 * do, `code` is the library's or device's failure code (e.g. `Failure_PinInvalid`) when there is
 * one. Messages are fixed texts or the library's own message; never a PIN or any user input.
 */
import { ActivationError, ErrorType } from '../../spec/errors.ts';

/** What went wrong, from the user's point of view. */
export const HwErrorKind = {
  WrongPin: 'WrongPin',
  DeviceDisconnected: 'DeviceDisconnected',
  ActionCancelled: 'ActionCancelled',
  Failure: 'Failure',
} as const;
export type HwErrorKind = (typeof HwErrorKind)[keyof typeof HwErrorKind];

/** `error_data` of a hardware `HwError`. */
export interface HwErrorData {
  readonly kind: HwErrorKind;
  readonly code?: string;
}

const MESSAGES: Readonly<Record<Exclude<HwErrorKind, 'Failure'>, string>> = {
  WrongPin: 'the device rejected the PIN',
  DeviceDisconnected: 'the hardware wallet was disconnected',
  ActionCancelled: 'the action was cancelled on the hardware wallet',
};

/** Library and device codes per kind (everything else is `Failure`). */
const KIND_OF_CODE: Readonly<Record<string, HwErrorKind>> = {
  Failure_PinInvalid: 'WrongPin',
  Failure_PinMismatch: 'WrongPin',
  Failure_PinCancelled: 'ActionCancelled',
  Failure_ActionCancelled: 'ActionCancelled',
  Method_Cancel: 'ActionCancelled',
  Method_Interrupted: 'ActionCancelled',
  Method_PermissionsNotGranted: 'ActionCancelled',
  Device_Disconnected: 'DeviceDisconnected',
  Device_NotFound: 'DeviceDisconnected',
  Device_UsedElsewhere: 'DeviceDisconnected',
  Transport_Missing: 'DeviceDisconnected',
};

/** An `HwError` of `kind`; `detail` replaces the default message (only for `Failure`). */
export function hwError(kind: HwErrorKind, options: { code?: string; detail?: string; cause?: unknown } = {}): ActivationError {
  const message = kind === 'Failure' ? `hardware wallet call failed: ${options.detail ?? 'unknown error'}` : MESSAGES[kind];
  const data: HwErrorData = options.code === undefined ? { kind } : { kind, code: options.code };
  return new ActivationError(ErrorType.HwError, message, data, options.cause === undefined ? {} : { cause: options.cause });
}

/** Maps a failed `@trezor/connect` response payload (`{ error, code? }`) to an `HwError`. */
export function fromConnectFailure(payload: { error?: unknown; code?: unknown }): ActivationError {
  const code = typeof payload.code === 'string' ? payload.code : undefined;
  const text = typeof payload.error === 'string' ? payload.error : 'unknown error';
  const kind = (code !== undefined ? KIND_OF_CODE[code] : undefined) ?? (/PIN invalid/i.test(text) ? 'WrongPin' : 'Failure');
  return hwError(kind, { code, detail: code === undefined ? text : `${text} (${code})` });
}

/**
 * The library could not be loaded. Node's loader messages name files by absolute path
 * (`Cannot find package '…' imported from /srv/app/…`), so the answer carries the loader's code
 * only; the caller logs the message.
 */
export function libraryLoadFailure(error: unknown): ActivationError {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'failed to load';
  return hwError('Failure', { detail: `@trezor/connect is unusable (${reason}); the service log has the details`, cause: error });
}
