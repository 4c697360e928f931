/**
 * The double's firmware: a Trezor One (model `1`, firmware 1.13.1) reduced to the messages
 * `@trezor/connect` sends for Ethereum public keys and Bitcoin-like extended public keys
 * (`GetPublicKey`, for the coins in {@link XPUB_MAGIC_OF_COIN}), and EVM transaction signing
 * (`ethereumSign.ts`, confirmed with a button). Pure state machine: one message in, the
 * messages to answer out. Behaviour follows the real device:
 * - a PIN-protected, locked device answers a key request with `PinMatrixRequest`; `PinMatrixAck`
 *   with the right positions unlocks it and answers the request, wrong ones fail with
 *   `Failure_PinInvalid` ("PIN invalid") and keep it locked; `Cancel` there fails with
 *   `Failure_PinCancelled`;
 * - `show_display` asks for a button (`ButtonRequest`), answered after `ButtonAck` (the user
 *   presses at once); with `confirmOnDevice` every Ethereum key request asks, and after
 *   `ButtonAck` the device waits for the user's press (`press()`) as a real one does, however long;
 *   `Cancel` there fails with `Failure_ActionCancelled`;
 * - `Initialize`/`GetFeatures` abort a pending PIN or button wait; anything unknown or out of turn
 *   fails with `Failure_UnexpectedMessage`.
 * Not modelled: passphrases, PIN back-off delays, auto-lock, wipe after 16 wrong PINs.
 */
import { randomBytes } from 'node:crypto';
import type { DeviceMessage, Fields } from './codec.ts';
import type { DeviceKeys } from './deviceKeys.ts';
import { positionsToPin } from './pinMatrix.ts';
import { ethereumSignature } from './ethereumSign.ts';

/**
 * The newest Trezor One release bundled with `@trezor/connect` 9.7.3: connect rates it `valid`
 * (no update prompt) and finds its release data locally (no download).
 */
export const DOUBLE_FIRMWARE = { version: [1, 13, 1], revision: '2a65d18200580005dc419b9569ed97fae440806a' } as const;

/**
 * The extended public key version of each `coin_name` the double answers `GetPublicKey` for (the
 * firmware's `xpub_magic`, as in connect's bundled `coins.json`).
 */
export const XPUB_MAGIC_OF_COIN: Readonly<Record<string, number>> = { Bitcoin: 0x0488b21e, Testnet: 0x043587cf, Litecoin: 0x019da462, Komodo: 0x0488b21e, Qtum: 0x0488b21e };

const FAILURE_TEXT = {
  Failure_UnexpectedMessage: 'Unexpected message',
  Failure_ActionCancelled: 'Action cancelled by user',
  Failure_PinCancelled: 'PIN cancelled',
  Failure_PinInvalid: 'PIN invalid',
  Failure_DataError: 'Invalid coin name',
} as const;
type FailureCode = keyof typeof FAILURE_TEXT;

/** The device's identity and secrets. */
export interface FirmwareOptions {
  readonly keys: DeviceKeys;
  /** Digits 1–9; `undefined` = no PIN protection. */
  readonly pin?: string;
  readonly deviceId: string;
  readonly label: string;
  /**
   * Every Ethereum key request waits for the user to confirm on the screen (`ButtonRequest_Other`,
   * as a real device does when it prompts, e.g. for a path its safety checks question), and every
   * button waits for the user's `press()`. Default false: buttons only for `show_display`, pressed
   * as soon as they are asked for.
   */
  readonly confirmOnDevice?: boolean;
}

/** Counters a test can assert on (never the PIN itself). */
export interface FirmwareStats {
  pinRequests: number;
  wrongPins: number;
}

/** The device state machine. */
export interface Firmware {
  handle(message: DeviceMessage): DeviceMessage[];
  /** The user presses the confirm button: the answer of the request waiting for it (none if none waits). */
  press(): DeviceMessage[];
  /** Locks the device (as `LockDevice` or a power cycle does). */
  lock(): void;
  readonly unlocked: boolean;
  stats(): FirmwareStats;
}

/** What the device waits for: a `PinMatrixAck`, a `ButtonAck`, or (after it) the user's press. */
type Pending = { readonly kind: 'pin' | 'button' | 'press'; readonly resume: () => DeviceMessage[] };

const message = (name: string, fields: Fields = {}): DeviceMessage => ({ name, fields });
const failure = (code: FailureCode): DeviceMessage => message('Failure', { code, message: FAILURE_TEXT[code] });

/** A fresh, initialised device; locked if it has a PIN. */
export function createFirmware({ keys, pin, deviceId, label, confirmOnDevice = false }: FirmwareOptions): Firmware {
  let unlocked = pin === undefined;
  let sessionId: string | undefined;
  let pending: Pending | undefined;
  const counters: FirmwareStats = { pinRequests: 0, wrongPins: 0 };

  const features = (): DeviceMessage => {
    const [major, minor, patch] = DOUBLE_FIRMWARE.version;
    return message('Features', {
      // No bootloader_mode: firmware leaves it unset, and connect rejects `false` as a strange shape.
      vendor: 'trezor.io',
      major_version: major,
      minor_version: minor,
      patch_version: patch,
      device_id: deviceId,
      pin_protection: pin !== undefined,
      passphrase_protection: false,
      language: 'en-US',
      label,
      initialized: true,
      revision: DOUBLE_FIRMWARE.revision,
      imported: false,
      unlocked,
      backup_availability: 'NotAvailable',
      flags: 0,
      model: '1',
      unfinished_backup: false,
      no_backup: false,
      capabilities: ['Capability_Bitcoin', 'Capability_Bitcoin_like', 'Capability_Crypto', 'Capability_Ethereum', 'Capability_NEM', 'Capability_Stellar', 'Capability_U2F'],
      backup_type: 'Bip39',
      sd_card_present: false,
      sd_protection: false,
      wipe_code_protection: false,
      session_id: sessionId,
      passphrase_always_on_device: false,
      safety_checks: 'Strict',
      auto_lock_delay_ms: 600_000,
      internal_model: 'T1B1',
    });
  };

  const withPin = (answer: () => DeviceMessage[]): DeviceMessage[] => {
    if (unlocked) return answer();
    counters.pinRequests += 1;
    pending = { kind: 'pin', resume: answer };
    return [message('PinMatrixRequest', { type: 'PinMatrixRequestType_Current' })];
  };

  /** `confirm`: the device asks to confirm even without `show_display` (see `confirmOnDevice`). */
  const withButton = (show: boolean, code: string, answer: () => DeviceMessage, confirm = false): DeviceMessage[] => {
    if (!show && !confirm) return [answer()];
    pending = { kind: 'button', resume: () => [answer()] };
    return [message('ButtonRequest', { code: show ? code : 'ButtonRequest_Other' })];
  };

  const addressN = (fields: Fields): number[] => (Array.isArray(fields.address_n) ? fields.address_n.map(Number) : []);

  const request = ({ name, fields }: DeviceMessage): DeviceMessage[] => {
    const path = addressN(fields);
    const show = fields.show_display === true;
    switch (name) {
      case 'GetAddress': {
        const coin = typeof fields.coin_name === 'string' ? fields.coin_name : 'Bitcoin';
        return withPin(() => {
          const address = fields.script_type === 'SPENDADDRESS' || fields.script_type == null ? keys.p2pkhAddress(path, coin) : undefined;
          return address === undefined ? [failure('Failure_DataError')] : withButton(show, 'ButtonRequest_Address', () => message('Address', { address }));
        });
      }
      case 'GetPublicKey': {
        const magic = XPUB_MAGIC_OF_COIN[typeof fields.coin_name === 'string' ? fields.coin_name : 'Bitcoin'];
        const legacy = fields.script_type == null || fields.script_type === 'SPENDADDRESS';
        if (magic === undefined || !legacy) return [failure('Failure_DataError')];
        return withPin(() => withButton(show, 'ButtonRequest_PublicKey', () => message('PublicKey', keys.publicNode(path, magic))));
      }
      case 'EthereumGetPublicKey':
        return withPin(() => withButton(show, 'ButtonRequest_PublicKey', () => message('EthereumPublicKey', keys.publicNode(path)), confirmOnDevice));
      case 'EthereumGetAddress':
        return withPin(() => withButton(show, 'ButtonRequest_Address', () => message('EthereumAddress', { address: keys.ethereumAddress(path) }), confirmOnDevice));
      // A transaction is always confirmed on the screen (`ethereumSign.ts`).
      case 'EthereumSignTx':
      case 'EthereumSignTxEIP1559':
        return withPin(() => withButton(true, 'ButtonRequest_SignTx', () => ethereumSignature(keys, name, fields, path) ?? failure('Failure_DataError')));
      default:
        return [failure('Failure_UnexpectedMessage')];
    }
  };

  const handle = (incoming: DeviceMessage): DeviceMessage[] => {
    const waiting = pending;
    pending = undefined;
    switch (incoming.name) {
      case 'Initialize': {
        const wanted = incoming.fields.session_id;
        if (typeof wanted !== 'string' || wanted !== sessionId) sessionId = randomBytes(32).toString('hex');
        return [features()];
      }
      case 'GetFeatures':
        return [features()];
      case 'Cancel':
        return [failure(waiting?.kind === 'pin' ? 'Failure_PinCancelled' : 'Failure_ActionCancelled')];
      case 'LockDevice':
        unlocked = pin === undefined;
        return [message('Success', {})];
      case 'EndSession':
        sessionId = undefined;
        return [message('Success', {})];
      case 'PinMatrixAck': {
        if (waiting?.kind !== 'pin') return [failure('Failure_UnexpectedMessage')];
        const entered = typeof incoming.fields.pin === 'string' ? positionsToPin(incoming.fields.pin) : undefined;
        if (entered === undefined || entered !== pin) {
          counters.wrongPins += 1;
          return [failure('Failure_PinInvalid')];
        }
        unlocked = true;
        return waiting.resume();
      }
      case 'ButtonAck':
        if (waiting?.kind !== 'button') return [failure('Failure_UnexpectedMessage')];
        if (!confirmOnDevice) return waiting.resume();
        pending = { kind: 'press', resume: waiting.resume };
        return [];
      default:
        return waiting === undefined ? request(incoming) : [failure('Failure_UnexpectedMessage')];
    }
  };

  return {
    handle,
    press: () => {
      const waiting = pending;
      if (waiting?.kind !== 'press') return [];
      pending = undefined;
      return waiting.resume();
    },
    lock: () => {
      unlocked = pin === undefined;
    },
    get unlocked() {
      return unlocked;
    },
    stats: () => ({ ...counters }),
  };
}
