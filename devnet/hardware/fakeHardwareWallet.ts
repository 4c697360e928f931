import { HDNodeWallet, SigningKey, getBytes } from 'ethers';
import type { AccountNodeRequest, AccountPublicNode, DeviceInfo, HardwareWallet, PublicKeyRequest } from '../../actors/ports/hardwareWallet.ts';
import { createDeviceKeys, parseBip32Path, TEST_MNEMONIC } from './deviceKeys.ts';
import type { PublicKey } from '../../actors/ports/keyProvider.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';

/** Seed of the fake device's account nodes (the standard Trezor test mnemonic, never a real wallet's). */
export const FAKE_DEVICE_MNEMONIC = TEST_MNEMONIC;

/** The Ethereum key `ethereumPublicKey` answers, whatever the path: address 0 of the seed's ETH account 0. */
const FAKE_DEVICE_ETH_PATH = "m/44'/60'/0'/0/0";

export interface FakeHardwareWalletOptions {
  /** The PIN the device accepts (keypad positions); `undefined`: the device is unlocked. */
  readonly pin?: string;
  /** Already connected when the first task waits (default false: waits until `connect()`). */
  readonly connected?: boolean;
  /** After the PIN, ask for a button press and wait for `confirm()` (default false: answer at once). */
  readonly holdForButton?: boolean;
}

/** A call the fake saw: its abort signal, to assert that leaving a task step really aborted it. */
export interface FakeCall {
  readonly kind: 'waitForDevice' | 'ethereumPublicKey' | 'accountPublicNode';
  readonly signal: AbortSignal;
  readonly path?: string;
  /** `accountPublicNode`: the device app asked (Bitcoin-like or Ethereum) and the coin name. */
  readonly protocol?: 'bitcoin' | 'ethereum';
  readonly coinName?: string;
}

/**
 * A scriptable `HardwareWallet` for task tests: waits for `connect()`, asks for its PIN through
 * `requestPin`, checks it (a wrong PIN is `HwError {"kind":"WrongPin"}`), and returns a fixed key
 * (`ethereumPublicKey`: the seed's `m/44'/60'/0'/0/0`) or the account node of {@link FAKE_DEVICE_MNEMONIC} at the path asked
 * (`accountPublicNode`).
 * It records signals and counts, never PIN values.
 */
export class FakeHardwareWallet implements HardwareWallet {
  readonly address: string;
  readonly publicKey: PublicKey;
  readonly calls: FakeCall[] = [];
  pinRequests = 0;
  pinsChecked = 0;
  readonly #pin: string | undefined;
  readonly #holdForButton: boolean;
  readonly #keys = createDeviceKeys(FAKE_DEVICE_MNEMONIC);
  #connected: boolean;
  #connectWaiters: (() => void)[] = [];
  #confirmWaiters: (() => void)[] = [];

  constructor(options: FakeHardwareWalletOptions = {}) {
    const key = HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, FAKE_DEVICE_ETH_PATH);
    this.address = key.address;
    this.publicKey = {
      compressed: getBytes(key.publicKey),
      compressedHex: key.publicKey.slice(2),
      uncompressedHex: SigningKey.computePublicKey(key.publicKey, false).slice(2),
    };
    this.#pin = options.pin;
    this.#connected = options.connected ?? false;
    this.#holdForButton = options.holdForButton ?? false;
  }

  /** Plugs the device in: every pending and later `waitForDevice` resolves. */
  connect(): void {
    this.#connected = true;
    for (const w of this.#connectWaiters.splice(0)) w();
  }

  /** The user confirms on the device screen (with `holdForButton`). */
  confirm(): void {
    for (const w of this.#confirmWaiters.splice(0)) w();
  }

  waitForDevice(signal: AbortSignal): Promise<DeviceInfo> {
    this.#record({ kind: 'waitForDevice', signal });
    const info: DeviceInfo = { deviceId: 'FAKE-DEVICE-1', model: 'T1B1', label: 'fake' };
    if (this.#connected) return Promise.resolve(info);
    return this.#waitFor(this.#connectWaiters, signal).then(() => info);
  }

  async ethereumPublicKey(request: PublicKeyRequest): Promise<{ publicKey: PublicKey; address: string }> {
    this.#record({ kind: 'ethereumPublicKey', signal: request.signal, path: request.path });
    await this.#unlockAndConfirm(request);
    return { publicKey: this.publicKey, address: this.address };
  }

  async accountPublicNode(request: AccountNodeRequest): Promise<AccountPublicNode> {
    this.#record({ kind: 'accountPublicNode', signal: request.signal, path: request.path, protocol: request.protocol, ...(request.coinName === undefined ? {} : { coinName: request.coinName }) });
    await this.#unlockAndConfirm(request);
    const { node } = this.#keys.publicNode(parseBip32Path(request.path));
    const compressedHex = node.public_key.toLowerCase();
    return {
      publicKey: { compressed: getBytes(`0x${compressedHex}`), compressedHex, uncompressedHex: SigningKey.computePublicKey(`0x${compressedHex}`, false).slice(2) },
      chainCode: getBytes(`0x${node.chain_code}`),
    };
  }

  /** The PIN (if the fake has one), then the button (with `holdForButton`). */
  async #unlockAndConfirm(request: PublicKeyRequest): Promise<void> {
    if (this.#pin !== undefined) {
      this.pinRequests += 1;
      const pin = await raceAbort(request.requestPin(), request.signal);
      this.pinsChecked += 1;
      if (pin !== this.#pin) throw new ActivationError(ErrorType.HwError, 'Invalid PIN entered on the device', { kind: 'WrongPin' });
    }
    if (this.#holdForButton) {
      request.onButtonRequest?.();
      await this.#waitFor(this.#confirmWaiters, request.signal);
    }
    request.signal.throwIfAborted();
  }

  async close(): Promise<void> {}

  #record(call: FakeCall): void {
    this.calls.push(call);
  }

  #waitFor(waiters: (() => void)[], signal: AbortSignal): Promise<void> {
    return raceAbort(new Promise<void>((resolve) => waiters.push(resolve)), signal);
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
