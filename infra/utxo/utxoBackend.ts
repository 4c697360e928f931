import type { Balance } from '../../machines/activation.types.ts';
import type { ElectrumWatchSource } from './electrumBalanceWatch.ts';
import type { NativeWatchSource } from './nativeBalanceWatch.ts';
import type { HistoryAddress, HistorySource } from '../../actors/history/historyPort.ts';
import type { WithdrawChain } from './withdraw/withdrawChain.ts';
import type { UtxoPlanParams } from './utxoPlan.ts';

/** One balance read of a UTXO coin, in its smallest unit. */
export interface UtxoRead {
  readonly currentBlock: number;
  readonly balance: Balance;
  readonly decimals: number;
}

/** How an active UTXO coin reaches its chain: an Electrum pool or a native daemon. */
export interface UtxoBackend {
  /** Reads the tip and the wallet's balance; legacy-worded `ActivationError`s on failure. */
  read(signal: AbortSignal): Promise<UtxoRead>;
  /**
   * An HD account's addresses (those its activation listed), balances and tip in one batch
   * (`account_balance`); absent on a coin without an HD account.
   */
  readAccount?(addresses: readonly string[], signal: AbortSignal): Promise<{ readonly currentBlock: number; readonly balances: readonly Balance[] }>;
  /** How the balance watchers follow it (an Electrum pool); absent: not watched. */
  readonly watch?: ElectrumWatchSource;
  /** How the balance watchers poll it (a native daemon); absent: not polled. */
  readonly nativeWatch?: NativeWatchSource;
  /**
   * The history of `addresses` (the coin's: its address, or its HD account's listed ones), over the
   * backend's connection; absent: no history is loaded this way (QRC20, native daemon).
   */
  historyOf?(addresses: readonly HistoryAddress[]): HistorySource;
  /**
   * What a withdrawal needs: the reads and broadcast on this coin's node (for a QRC20: its
   * platform's outputs, on the same node) and the coin as planned (entry, address rule, maturity).
   */
  readonly withdraw?: { readonly chain: WithdrawChain; readonly params: UtxoPlanParams };
  /** An HD account's key (compressed) for one of its listed addresses; absent: only the coin's own address. */
  senderKey?(address: string): Uint8Array | undefined;
  /** Lets go of open connections (disable, stop, failed activation). Idempotent. */
  close(): void;
}
