import type { PublicKey } from './keyProvider.ts';
import type { EthereumTxToSign, RecoverableSignature } from './withdraw.ts';

/** A connected device as the task reports it (no secret). */
export interface DeviceInfo {
  readonly deviceId: string;
  readonly model?: string;
  readonly label?: string;
}

export interface PublicKeyRequest {
  /** BIP32 path, e.g. `m/44'/60'/0'/0/0`. */
  readonly path: string;
  /** Aborting stops the device call (cancel, timeout). */
  readonly signal: AbortSignal;
  /**
   * Called when the device asks for its PIN (matrix positions 1–9, as the user reads them off the
   * device's scrambled grid). Resolves with the PIN to send; may be called again after a wrong PIN
   * only if the implementation retries (it should not: a wrong PIN fails the call).
   */
  readonly requestPin: () => Promise<string>;
  /** Called when the device waits for the user to confirm on its screen. */
  readonly onButtonRequest?: () => void;
}

/** A request for an account's public node: `path` is the account's, e.g. `m/44'/2'/0'`. */
export interface AccountNodeRequest extends PublicKeyRequest {
  /** Which app of the device derives it: a Bitcoin-like coin's (`GetPublicKey`) or Ethereum's (`EthereumGetPublicKey`). */
  readonly protocol: 'bitcoin' | 'ethereum';
  /** A Bitcoin-like coin's name on the device (coins file `trezor_coin`, e.g. `Litecoin`); absent: inferred from the path. */
  readonly coinName?: string;
}

/** An account's public BIP32 node: what an extended public key carries, less its metadata. */
export interface AccountPublicNode {
  readonly publicKey: PublicKey;
  /** 32 bytes. */
  readonly chainCode: Uint8Array;
}

/**
 * The hardware-wallet port (spec `priv_key_policy: "Hardware"`). The task machine invokes it through
 * actors; implementations: the `@trezor/connect` adapter (UDP transport) in production and tests.
 * Every failure is an `ActivationError` of type `HwError` (with `error_data` telling the user what
 * to do, e.g. `{"kind":"WrongPin"}`), or the signal's abort reason.
 */
export interface HardwareWallet {
  /** Resolves once a device is connected and answered its features; waits until `signal` aborts. */
  waitForDevice(signal: AbortSignal): Promise<DeviceInfo>;
  /** The secp256k1 public key and Ethereum address at `path`, running the PIN flow if needed. */
  ethereumPublicKey(request: PublicKeyRequest): Promise<{ publicKey: PublicKey; address: string }>;
  /**
   * The public node (key and chain code) at an account path, running the PIN flow if needed: the
   * account's addresses are derived from it without asking the device again. Never shown on the
   * device's screen.
   */
  accountPublicNode(request: AccountNodeRequest): Promise<AccountPublicNode>;
  /**
   * Signs an EVM transaction on the device (`EthereumSignTx`, or `EthereumSignTxEIP1559`) with the
   * key at `request.path`, running the PIN flow if needed; the user confirms it on the device.
   */
  ethereumSignTx?(request: PublicKeyRequest & { readonly tx: EthereumTxToSign }): Promise<RecoverableSignature>;
  /** Releases the transport. */
  close(): Promise<void>;
}
