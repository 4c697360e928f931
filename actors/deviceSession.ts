import { fromCallback, type AnyEventObject } from 'xstate';
import type { HardwareWallet, PublicKeyRequest } from './ports/hardwareWallet.ts';
import type { DeviceRead, DeviceSessionEvent } from '../machines/activationTask.machine.ts';
import type { DeviceKey } from '../machines/activation.types.ts';

/**
 * The invoked device step of a hardware task: reads what the plan asks of the device (the Ethereum
 * public key of one address, or an account's public node for an HD scan), telling the task when
 * the device wants its PIN or a button press, and receiving the PIN as a `PIN` event.
 * The PIN only passes through here to the device; it is never stored or reported.
 * Leaving the step aborts the device call.
 */
export function deviceSessionActor(hardware: () => Promise<HardwareWallet>) {
  return fromCallback<AnyEventObject, DeviceRead>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const report = (event: DeviceSessionEvent) => {
      if (!controller.signal.aborted) sendBack(event);
    };
    const request: PublicKeyRequest = { path: input.path, signal: controller.signal, ...devicePrompts(report, receive) };
    hardware()
      .then((wallet) => readKey(wallet, input, request))
      .then(
        (key) => report({ type: 'KEY_READ', key }),
        (error: unknown) => report({ type: 'DEVICE_FAILED', error }),
      );
    return () => controller.abort(new Error('the task left the device step'));
  });
}

/** The PIN and button callbacks of a device call, reported to a task, the PIN received as a `PIN` event. */
export interface DevicePrompts {
  readonly requestPin: () => Promise<string>;
  readonly onButtonRequest: () => void;
}

/**
 * Wires a device call's prompts to the task: a PIN request is reported and answered by the next
 * `PIN` event `receive` gets; a button request is reported. The PIN is only passed on.
 */
export function devicePrompts(report: (event: DeviceSessionEvent) => void, receive: (listener: (event: AnyEventObject) => void) => void): DevicePrompts {
  let deliverPin: ((pin: string) => void) | undefined;
  receive((event) => {
    if (event.type === 'PIN' && typeof event.pin === 'string') {
      deliverPin?.(event.pin);
      deliverPin = undefined;
    }
  });
  return {
    requestPin: () =>
      new Promise<string>((resolve) => {
        deliverPin = resolve;
        report({ type: 'PIN_REQUESTED' });
      }),
    onButtonRequest: () => report({ type: 'BUTTON_REQUESTED' }),
  };
}

async function readKey(wallet: HardwareWallet, read: DeviceRead, request: PublicKeyRequest): Promise<DeviceKey> {
  if (read.account === undefined) {
    const { publicKey, address } = await wallet.ethereumPublicKey(request);
    return { uncompressedHex: publicKey.uncompressedHex, address, derivationPath: read.path };
  }
  const { coinName, protocol } = read.account;
  const node = await wallet.accountPublicNode({ ...request, protocol, ...(coinName === undefined ? {} : { coinName }) });
  return {
    accountId: read.account.accountId,
    derivationPath: read.path,
    publicKeyHex: node.publicKey.compressedHex,
    chainCodeHex: Buffer.from(node.chainCode).toString('hex'),
  };
}
