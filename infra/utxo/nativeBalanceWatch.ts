/**
 * The native-daemon side of the balance watchers (issue 24): one watched node per daemon endpoint,
 * polled like EVM and TRON. A new block is found by `getblockcount` every `balance_poll_s`; a read
 * is the activation's own read of each watched coin (`getblockcount`, the import check and
 * `listunspent`, at once). A daemon pushes nothing: a transaction in the mempool is seen at the
 * next block.
 */
import type { ActivatedCoin, Balance } from '../../machines/activation.types.ts';
import { DEFAULT_BALANCE_POLL_MS, coinBalances, type CoinWatch, type WatchedBalance, type WatchRead } from '../../actors/ports/balanceWatch.ts';
import { watchKey } from '../../machines/balanceWatch.machine.ts';

/** How a native coin is watched: its daemon, its block height and its balance read. */
export interface NativeWatchSource {
  /** `127.0.0.1:<rpcport>`: coins on the same daemon share one watcher (in memory only). */
  readonly endpoint: string;
  readBlock(signal: AbortSignal): Promise<number>;
  read(signal: AbortSignal): Promise<{ readonly currentBlock: number; readonly balance: Balance }>;
  /** Time between two polls of the height (`balance_poll_s`). */
  readonly pollMs?: number;
}

/** What to watch of an active native coin; `sources` holds every active native coin's source by ticker. */
export function nativeCoinWatch(coin: ActivatedCoin, own: NativeWatchSource, sources: ReadonlyMap<string, NativeWatchSource>): CoinWatch {
  return {
    node: {
      key: `native ${own.endpoint}`,
      pollMs: own.pollMs ?? DEFAULT_BALANCE_POLL_MS,
      readBlock: (signal) => own.readBlock(signal),
      read: (balances, signal) => readWatched(balances, sources, signal),
      close: () => undefined, // plain HTTP: nothing is held open
    },
    balances: coinBalances(coin),
    block: coin.currentBlock,
  };
}

/** Every watched coin's read at once; the lowest block is the read's. */
async function readWatched(balances: readonly WatchedBalance[], sources: ReadonlyMap<string, NativeWatchSource>, signal: AbortSignal): Promise<WatchRead> {
  const platforms = [...new Set(balances.map((b) => b.platform))].filter((p) => sources.has(p));
  const reads = new Map(await Promise.all(platforms.map(async (p) => [p, await sources.get(p)!.read(signal)] as const)));
  const values = new Map<string, Balance>();
  for (const b of balances) {
    const read = reads.get(b.platform);
    if (read !== undefined) values.set(watchKey(b), read.balance);
  }
  const blocks = [...reads.values()].map((r) => r.currentBlock);
  return { block: blocks.length === 0 ? 0 : Math.min(...blocks), balances: values };
}
