import { fromCallback, type AnyEventObject } from 'xstate';
import type { HardwareWallet } from './ports/hardwareWallet.ts';
import type { DeviceSessionEvent } from '../machines/activationTask.machine.ts';

/**
 * The invoked device step of a hardware task: reads the Ethereum public key at `path`, telling the
 * task when the device wants its PIN or a button press, and receiving the PIN as a `PIN` event.
 * The PIN only passes through here to the device; it is never stored or reported.
 * Leaving the step aborts the device call.
 */
export function deviceSessionActor(hardware: () => Promise<HardwareWallet>) {
  return fromCallback<AnyEventObject, { path: string }>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    let deliverPin: ((pin: string) => void) | undefined;
    const report = (event: DeviceSessionEvent) => {
      if (!controller.signal.aborted) sendBack(event);
    };
    receive((event) => {
      if (event.type === 'PIN' && typeof event.pin === 'string') {
        deliverPin?.(event.pin);
        deliverPin = undefined;
      }
    });
    hardware()
      .then((wallet) =>
        wallet.ethereumPublicKey({
          path: input.path,
          signal: controller.signal,
          requestPin: () =>
            new Promise<string>((resolve) => {
              deliverPin = resolve;
              report({ type: 'PIN_REQUESTED' });
            }),
          onButtonRequest: () => report({ type: 'BUTTON_REQUESTED' }),
        }),
      )
      .then(
        ({ publicKey, address }) =>
          report({ type: 'KEY_READ', key: { uncompressedHex: publicKey.uncompressedHex, address, derivationPath: input.path } }),
        (error: unknown) => report({ type: 'DEVICE_FAILED', error }),
      );
    return () => controller.abort(new Error('the task left the device step'));
  });
}
