/**
 * The hardware-wallet port over `@trezor/connect` and its UDP (emulator-protocol) transport.
 * Creating the adapter costs nothing: connect (about 1.5 s of module loading) is imported and
 * initialised on the first device call, and released by `close()`.
 * Nothing but the configured UDP endpoint is contacted (see `networkGuard.ts`).
 */
import { systemClock, type Clock } from '../../kernel/clock.ts';
import { acquireConnect, releaseConnect, type ConnectRuntime } from './connectRuntime.ts';
import type { Log } from '../../kernel/log.ts';
import type { DeviceInfo, HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { readAccountPublicNode, readEthereumPublicKey, untilAborted } from './publicKeyCall.ts';
import { signEthereumTransaction } from './ethereumSignCall.ts';

export { HwErrorKind, type HwErrorData } from './hwErrors.ts';

/** The real emulator's (and `trezord`'s emulator) UDP port. */
export const DEFAULT_UDP_PORT = 21324;

/** Options of {@link createTrezorConnectWallet}. */
export interface TrezorConnectWalletOptions {
  /** Default 127.0.0.1. */
  readonly udpHost?: string;
  /** Default {@link DEFAULT_UDP_PORT}. */
  readonly udpPort?: number;
  /** Timers (cancel grace period) and the start-up measurement. Default: the system clock. */
  readonly clock?: Clock;
  /** Start-up and guard messages only; never receives a PIN or key material. */
  readonly log?: Log;
}

/**
 * The adapter. All adapters of a process share one connect instance, bound to one endpoint at a
 * time: a second endpoint while the first is in use fails with `HwError` `Failure`.
 */
export function createTrezorConnectWallet(options: TrezorConnectWalletOptions = {}): HardwareWallet {
  const host = options.udpHost ?? '127.0.0.1';
  const port = options.udpPort ?? DEFAULT_UDP_PORT;
  const clock = options.clock ?? systemClock;
  let runtime: Promise<ConnectRuntime> | undefined;

  const connect = (): Promise<ConnectRuntime> => {
    if (runtime === undefined) {
      const started = acquireConnect({ host, port, clock, log: options.log });
      runtime = started;
      started.catch(() => {
        if (runtime === started) runtime = undefined;
      });
    }
    return runtime;
  };

  return {
    async waitForDevice(signal) {
      const ready = await untilAborted(connect(), signal);
      return waitForFirstDevice(ready, signal);
    },

    async ethereumPublicKey(request) {
      const ready = await untilAborted(connect(), request.signal);
      return readEthereumPublicKey(ready, request, clock, options.log);
    },

    async accountPublicNode(request) {
      const ready = await untilAborted(connect(), request.signal);
      return readAccountPublicNode(ready, request, clock, options.log);
    },

    async ethereumSignTx(request) {
      const ready = await untilAborted(connect(), request.signal);
      return signEthereumTransaction(ready, request, clock, options.log);
    },

    async close() {
      const current = runtime;
      runtime = undefined;
      if (current === undefined) return;
      if (await current.then(() => true, () => false)) await releaseConnect();
    },
  };
}

/**
 * A connected device now, or the next one to connect. Rejects with the signal's reason on abort,
 * or with an `HwError` if connect is disposed meanwhile.
 */
function waitForFirstDevice(runtime: ConnectRuntime, signal: AbortSignal): Promise<DeviceInfo> {
  const present = runtime.devices()[0];
  if (present !== undefined || signal.aborted) return untilAborted(Promise.resolve(present!), signal);
  let stop: () => void = () => {};
  const next = new Promise<DeviceInfo>((resolve) => (stop = runtime.onDevice(resolve)));
  return untilAborted(untilAborted(next, runtime.closed), signal).finally(stop);
}
