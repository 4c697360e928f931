/**
 * One public-key call through `@trezor/connect` (`ethereumGetPublicKey` for an address's key,
 * `getPublicKey` for an account's node), with its UI flow:
 * - `ui-request_pin` → `requestPin()` → `uiResponse({ type: 'ui-receive_pin' })`. Connect retries
 *   a rejected PIN (`ui-invalid_pin`, then a new request); the port wants a wrong PIN to fail the
 *   call, so the retry is cancelled and the call fails with `WrongPin`;
 * - `ui-button` → `onButtonRequest()`;
 * - abort → `TrezorConnect.cancel()` and rejection with the signal's reason at once. The device
 *   stays locked for this process until connect's call has actually ended (or a grace period
 *   passed), so the next call never finds it busy.
 * The PIN goes from `requestPin` straight to `uiResponse`; it is never stored, logged or put in an
 * error, and connect's in-memory record of the `PinMatrixAck` is redacted afterwards.
 */
import { SigningKey } from 'ethers';
import { isActivationError, type ActivationError } from '../../spec/errors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { evmAddress } from '../keys/addresses.ts';
import type { PublicKey } from '../../actors/ports/keyProvider.ts';
import { redactPinEntries } from './connectLogs.ts';
import type { ConnectRuntime } from './connectRuntime.ts';
import type { Log } from '../../kernel/log.ts';
import type { AccountNodeRequest, AccountPublicNode, PublicKeyRequest } from '../../actors/ports/hardwareWallet.ts';
import { fromConnectFailure, hwError } from './hwErrors.ts';

/** How long a cancelled call may keep the device before the next call gets it anyway. */
const CANCEL_GRACE_MS = 15_000;
/** Matrix positions 1–9; the Trezor One accepts at most 50. */
const PIN_POSITIONS = /^[1-9]{1,50}$/;

/** Runs the call; resolves with the key and its EIP-55 address, rejects with an `HwError` or the abort reason. */
export async function readEthereumPublicKey(
  runtime: ConnectRuntime,
  request: PublicKeyRequest,
  clock: Clock,
  log?: Log,
): Promise<{ publicKey: PublicKey; address: string }> {
  const payload = await callDevice(runtime, request, clock, log, () => runtime.api.ethereumGetPublicKey({ path: request.path, showOnTrezor: false }));
  const publicKey = toPublicKey(payload.publicKey);
  return { publicKey, address: evmAddress(publicKey) };
}

/**
 * The node at an account path, never shown on the screen: `getPublicKey` for a Bitcoin-like coin
 * (connect asks the device for the node and for its child 0 and checks the one derives the other
 * before answering), `ethereumGetPublicKey` for Ethereum. Resolves with the node's key and chain code.
 */
export async function readAccountPublicNode(runtime: ConnectRuntime, request: AccountNodeRequest, clock: Clock, log?: Log): Promise<AccountPublicNode> {
  const coin = request.coinName === undefined ? {} : { coin: request.coinName };
  const payload =
    request.protocol === 'ethereum'
      ? await callDevice(runtime, request, clock, log, () => runtime.api.ethereumGetPublicKey({ path: request.path, showOnTrezor: false }))
      : await callDevice(runtime, request, clock, log, () => runtime.api.getPublicKey({ path: request.path, showOnTrezor: false, ...coin }));
  if (!/^[0-9a-fA-F]{64}$/.test(payload.chainCode)) throw hwError('Failure', { detail: 'the device returned a malformed chain code' });
  return { publicKey: toPublicKey(payload.publicKey), chainCode: Uint8Array.from(Buffer.from(payload.chainCode, 'hex')) };
}

/** What connect answers a call with: its payload on success, else the failure. */
type ConnectResponse = { success: true; payload: unknown } | { success: false; payload: Parameters<typeof fromConnectFailure>[0] };

/** Runs `start` (one connect call) with the device lock, the PIN and button flow and abort; its payload, or an `HwError`. */
export async function callDevice<R extends ConnectResponse>(
  runtime: ConnectRuntime,
  { path, signal, requestPin, onButtonRequest }: PublicKeyRequest,
  clock: Clock,
  log: Log | undefined,
  start: () => Promise<R>,
): Promise<Extract<R, { success: true }>['payload']> {
  const unlock = await runtime.lock(signal);
  const { api } = runtime;
  let failure: ActivationError | undefined;
  let wrongPin = false;
  const cancel = () => {
    try {
      api.cancel('cancelled by coin-activation');
    } catch {
      // connect already gone (disposed): nothing left to cancel
    }
  };
  const fail = (error: ActivationError) => {
    failure ??= error;
    cancel();
  };

  const answerPin = async () => {
    let pin: string;
    try {
      pin = await untilAborted(requestPin(), signal);
    } catch (error) {
      if (signal.aborted) return; // onAbort cancelled already
      return fail(isActivationError(error) ? error : hwError('ActionCancelled', { code: 'PinNotEntered' }));
    }
    if (signal.aborted || failure !== undefined) return cancel();
    if (!PIN_POSITIONS.test(pin)) return fail(hwError('WrongPin', { code: 'PinMalformed' }));
    try {
      api.uiResponse({ type: 'ui-receive_pin', payload: pin });
    } catch (error) {
      fail(hwError('Failure', { detail: 'could not hand the PIN to @trezor/connect', cause: error }));
    }
  };
  const notifyButton = () => {
    try {
      onButtonRequest?.();
    } catch {
      // the caller's notification failing must not break connect's event dispatch
    }
  };

  const stopUi = runtime.onUi((type) => {
    if (type === 'ui-invalid_pin') wrongPin = true;
    else if (signal.aborted || failure !== undefined) {
      if (type === 'ui-request_pin' || type === 'ui-button') cancel();
    } else if (type === 'ui-request_pin') {
      if (wrongPin) fail(hwError('WrongPin', { code: 'Failure_PinInvalid' }));
      else void answerPin();
    } else if (type === 'ui-button') notifyButton();
  });

  let stopGrace: (() => void) | undefined;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    stopGrace?.();
    stopUi();
    redactPinEntries();
    unlock();
  };
  const onAbort = () => {
    cancel();
    stopGrace = clock.setTimeout(() => {
      log?.warn('a cancelled hardware wallet call did not end; releasing the device anyway', { path });
      release();
    }, CANCEL_GRACE_MS);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const call = start();
  void call.finally(release).catch(() => {});

  try {
    const response = await untilAborted(untilAborted(call, runtime.closed), signal);
    if (failure !== undefined) throw failure;
    if (!response.success) throw wrongPin ? hwError('WrongPin', { code: 'Failure_PinInvalid' }) : fromConnectFailure(response.payload);
    return (response as Extract<R, { success: true }>).payload;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `PublicKey` from the 33-byte compressed key connect returns as hex (the point is validated). */
function toPublicKey(hex: string): PublicKey {
  if (!/^0[23][0-9a-fA-F]{64}$/.test(hex)) throw hwError('Failure', { detail: 'the device returned a malformed public key' });
  let uncompressed: string;
  try {
    uncompressed = SigningKey.computePublicKey(`0x${hex}`, false);
  } catch (error) {
    throw hwError('Failure', { detail: 'the device returned a public key that is not on secp256k1', cause: error });
  }
  const compressedHex = hex.toLowerCase();
  return { compressed: Uint8Array.from(Buffer.from(compressedHex, 'hex')), compressedHex, uncompressedHex: uncompressed.slice(2).toLowerCase() };
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
