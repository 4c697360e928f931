/**
 * The withdraw capability of a chain family (issue 25, docs/compatibility.md §23). A family builds
 * and signs (`prepare`, never broadcasting) and broadcasts a signed transaction of one of its coins
 * (`broadcast`, for `send_raw_transaction`). actors/chainFamilies.ts routes to it; each family's
 * code lives in its own folder (infra/evm/withdraw/, infra/tron/withdraw/, infra/utxo/withdraw/).
 */
import type { ActivatedCoin, ActivatedToken } from '../../machines/activation.types.ts';
import type { PreparedWithdrawal, WithdrawOrder } from '../../spec/withdraw.ts';

/** An active coin as a withdrawal sees it: the platform (its connection, address, decimals) and, for a token, the token. */
export interface ActiveCoinView {
  /** The ticker withdrawn: the platform's own or a token's. */
  readonly ticker: string;
  readonly platform: ActivatedCoin;
  /** Set when `ticker` is a token of `platform` (ERC20, TRC20, QRC20 on its platform). */
  readonly token?: ActivatedToken;
  /** Decimals of `ticker`. */
  readonly decimals: number;
  /** The coins-file entry's fields a family may need (`chain_id`, `max_eth_tx_type`, `txfee`, `dust`, …). */
  readonly entry: Readonly<Record<string, unknown>>;
}

/** A secp256k1 signature with its recovery id (EVM `yParity`, TRON `v − 27`). */
export interface RecoverableSignature {
  /** 32 bytes, hex without `0x`. */
  readonly r: string;
  readonly s: string;
  /** 0 or 1. */
  readonly recovery: 0 | 1;
}

/** An EVM transaction as a device signs it (fields of `EthereumSignTx` / `EthereumSignTxEIP1559`). */
export interface EthereumTxToSign {
  readonly chainId: number;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly to: string;
  readonly value: bigint;
  /** Hex without `0x`, empty for a plain transfer. */
  readonly data: string;
  readonly fee: { readonly type: 'legacy'; readonly gasPrice: bigint } | { readonly type: 'eip1559'; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint };
}

/**
 * How a withdrawal gets its signature. `key`: the key provider signs a digest (Iguana, HD
 * mnemonic). `device`: the hardware wallet signs the transaction itself (the user confirms on
 * its screen); each family asks it through its own method (`ethereumSignTx`, and the UTXO
 * family's). Everything is checked BEFORE the signer is asked.
 */
export type WithdrawSigner =
  | { readonly kind: 'key'; signDigest(digest: Uint8Array): Promise<RecoverableSignature> }
  | { readonly kind: 'device'; readonly device: DeviceSigner };

/**
 * A UTXO transaction as a device signs it (`SignTx` and its `TxRequest`/`TxAck` rounds): every
 * input is the sender's (at the signer's path), the previous transactions let the device check
 * the input amounts, and the change output is named by path so the device need not show it.
 */
export interface UtxoTxToSign {
  /** The device's name of the coin (coins file `trezor_coin`, e.g. `Litecoin`). */
  readonly coinName: string;
  readonly version: number;
  readonly lockTime: number;
  /** `SPENDADDRESS` (P2PKH) or `SPENDWITNESS` (P2WPKH), the same for every input. */
  readonly inputScriptType: 'SPENDADDRESS' | 'SPENDWITNESS';
  /** Transaction ids big-endian hex; amounts in the coin's smallest unit. */
  readonly inputs: readonly { readonly prevHash: string; readonly prevIndex: number; readonly amount: bigint }[];
  /** To an address, or (change) back to the signer's path. */
  readonly outputs: readonly ({ readonly address: string; readonly amount: bigint } | { readonly change: true; readonly amount: bigint })[];
  /** Raw hex of every transaction an input spends from. */
  readonly previous: readonly { readonly txid: string; readonly hex: string }[];
}

/** The device, at the sender's path, with the task's PIN and button steps already wired in. */
export interface DeviceSigner {
  /** The sender's BIP32 path. */
  readonly path: string;
  ethereumSignTx(tx: EthereumTxToSign, signal: AbortSignal): Promise<RecoverableSignature>;
  /** Signs a UTXO transaction; resolves with the signed transaction's hex. */
  utxoSignTx?(tx: UtxoTxToSign, signal: AbortSignal): Promise<{ readonly txHex: string }>;
}

/** The family capability (the seam of issue 25). */
export interface WithdrawCapability {
  /** Protocol types it withdraws (coins-file `protocol.type`, e.g. `ETH`, `ERC20`). */
  readonly protocols: readonly string[];
  /**
   * Those of {@link protocols} `task::withdraw` signs; absent: all. Any other ends the task with
   * `CoinDoesntSupportInitWithdraw` (the reference's answer for e.g. QRC20).
   */
  readonly taskProtocols?: readonly string[];
  /** Build and sign; checks everything (address, amount, fee type, balances) BEFORE signing; throws ActivationError. */
  prepare(coin: ActiveCoinView, order: WithdrawOrder, signer: WithdrawSigner, signal: AbortSignal): Promise<PreparedWithdrawal>;
  /** Broadcast a signed transaction of this coin; returns tx hash and the node (origin label) that took it. */
  broadcast(coin: ActiveCoinView, txHex: string, signal: AbortSignal): Promise<BroadcastOutcome>;
}

/** What a broadcast reports (an EVM one also names the sender and nonce it used). */
export interface BroadcastOutcome {
  readonly txHash: string;
  /** The node that took it, by origin only. */
  readonly node: string;
  readonly from?: string;
  readonly nonce?: bigint;
}
