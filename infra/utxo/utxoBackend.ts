import type { Balance } from '../../machines/activation.types.ts';
import type { ElectrumWatchSource } from './electrumBalanceWatch.ts';
import type { NativeWatchSource } from './nativeBalanceWatch.ts';

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
  /** How the balance watchers follow it (an Electrum pool); absent: not watched. */
  readonly watch?: ElectrumWatchSource;
  /** How the balance watchers poll it (a native daemon); absent: not polled. */
  readonly nativeWatch?: NativeWatchSource;
  /** Lets go of open connections (disable, stop, failed activation). Idempotent. */
  close(): void;
}
