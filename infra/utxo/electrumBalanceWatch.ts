/**
 * The Electrum side of the balance watchers (issue 24): one watched node per Electrum server list.
 * Every watched coin's script hashes are subscribed (`blockchain.scripthash.subscribe`) on the
 * connection the watcher reads through, with `blockchain.headers.subscribe` for new blocks. A
 * status notification is a "changed" push and a read then asks the node again only for the coins
 * whose script hashes changed; the others keep the value last read without a node call. A lost
 * connection resubscribes everything on the next one (the pool reconnects); until then the block
 * height is polled.
 */
import type { ActivatedCoin, Balance } from '../../machines/activation.types.ts';
import { DEFAULT_BALANCE_POLL_MS, coinBalances, type CoinWatch, type HeadListener, type WatchedBalance, type WatchedNode, type WatchRead } from '../../actors/ports/balanceWatch.ts';
import { watchKey } from '../../machines/balanceWatch.machine.ts';
import type { ElectrumConnection } from '../electrum/electrumConnection.ts';
import type { ElectrumPool } from '../electrum/electrumPool.ts';
import type { CoinbaseMemo, ElectrumBatch } from './electrumAccountReader.ts';
import { coalescedBatch } from './coalescedBatch.ts';

/** How an Electrum coin is watched: its pool, the script hashes that pay each of its addresses, and their balance read. */
export interface ElectrumWatchSource {
  readonly pool: ElectrumPool;
  /** The pool's server URLs: coins on the same servers share one watcher (in memory only). */
  readonly servers: readonly string[];
  /**
   * The script hashes whose status tells the balance of `address` changed (every address of an HD
   * account has its own); absent for a QRC20, whose balance lives in its contract: it is read
   * again at every block.
   */
  scriptHashesOf?(address: string): readonly string[];
  /** What the coin's reads know of its transactions; the watcher adds each new block's coinbase. */
  readonly memo?: CoinbaseMemo;
  /** The balances of `addresses` (the activation's read) with one server's batches, by address. */
  read(batch: ElectrumBatch, addresses: readonly string[]): Promise<{ readonly currentBlock: number; readonly balances: ReadonlyMap<string, Balance> }>;
  /** Time between two polls of the block height when nothing is pushed (`balance_poll_s`). */
  readonly pollMs?: number;
}

/**
 * What to watch of an active Electrum coin. `sources` holds every active Electrum coin's source
 * by ticker: the watcher of a shared server list reads the coins that joined it through them.
 */
export function electrumCoinWatch(coin: ActivatedCoin, own: ElectrumWatchSource, sources: ReadonlyMap<string, ElectrumWatchSource>, running: RunningWatchers): CoinWatch {
  const node = watchedElectrumNode(own, sources, running);
  // A coin joining a running watcher of its servers: that watcher reads (and subscribes) it at once.
  running.get(node.key)?.();
  return { node, balances: coinBalances(coin), block: coin.currentBlock };
}

/**
 * The watchers that follow their servers now, by node key: how to make one read again. Kept by
 * the family so that a coin that joins is subscribed at once, not at the next block.
 */
export type RunningWatchers = Map<string, () => void>;

const heightOf = (header: unknown): number => {
  const height = (header as { height?: unknown } | null)?.height;
  if (typeof height !== 'number' || !Number.isSafeInteger(height)) throw new Error('headers.subscribe height is not an integer');
  return height;
};

function watchedElectrumNode(own: ElectrumWatchSource, sources: ReadonlyMap<string, ElectrumWatchSource>, running: RunningWatchers): WatchedNode {
  const key = ['electrum', ...[...own.servers].sort()].join(' ');
  // Subscriptions belong to one connection: which script hashes are subscribed there.
  let subscribed: { readonly connection: ElectrumConnection; readonly hashes: Set<string> } | undefined;
  /** Script hashes notified since their coin was last read. */
  const changed = new Set<string>();
  let listener: HeadListener | undefined;
  let tip = 0;

  /** Subscribes on `connection` what is not yet (headers first on a new connection), in one batch. */
  async function subscribe(connection: ElectrumConnection, hashes: readonly string[], signal: AbortSignal): Promise<void> {
    const fresh = subscribed?.connection !== connection;
    const on = fresh ? { connection, hashes: new Set<string>() } : subscribed!;
    const missing = [...new Set(hashes)].filter((h) => !on.hashes.has(h));
    if (!fresh && missing.length === 0) return;
    const calls = [...(fresh ? [{ method: 'blockchain.headers.subscribe', params: [] }] : []), ...missing.map((h) => ({ method: 'blockchain.scripthash.subscribe', params: [h] }))];
    const answers = await connection.batch(calls, signal);
    if (fresh) tip = Math.max(tip, heightOf(answers[0]));
    for (const h of missing) on.hashes.add(h);
    subscribed = on;
    if (fresh) listener?.live();
  }

  async function read(balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead> {
    const byPlatform = new Map<string, WatchedBalance[]>();
    for (const b of balances) byPlatform.set(b.platform, [...(byPlatform.get(b.platform) ?? []), b]);
    // Notifications that came in the same chunk (a block paying two scripts) are all marked before
    // deciding what is stale: one read for them, not one each.
    await new Promise((resolve) => setImmediate(resolve));
    return own.pool.use(async (connection) => {
      const hashesOf = (platform: string, address: string) => sources.get(platform)?.scriptHashesOf?.(address);
      const hashes = [...byPlatform].flatMap(([p, items]) => items.flatMap((b) => hashesOf(p, b.address) ?? []));
      const wasSubscribed = subscribed?.connection === connection ? new Set(subscribed.hashes) : new Set<string>();
      await subscribe(connection, hashes, signal);
      const values = new Map<string, { spendable: bigint; unspendable: bigint }>();
      let block = tip;
      // Which addresses to read again (every address of an HD account has its scripts): a status
      // changed, the hash was not subscribed yet, or nothing is known. Decided for every coin
      // before any is read: coins paid by one script all go stale.
      const stale: { readonly source: ElectrumWatchSource; readonly scripts: readonly string[]; readonly byAddress: ReadonlyMap<string, readonly WatchedBalance[]> }[] = [];
      for (const [platform, items] of byPlatform) {
        const source = sources.get(platform);
        if (source === undefined) continue;
        const byAddress = new Map<string, WatchedBalance[]>();
        for (const b of items) byAddress.set(b.address, [...(byAddress.get(b.address) ?? []), b]);
        const staleHere = new Map<string, WatchedBalance[]>();
        for (const [address, watched] of byAddress) {
          const scripts = hashesOf(platform, address);
          if (scripts === undefined || scripts.some((h) => changed.has(h) || !wasSubscribed.has(h)) || watched.some((b) => b.balance === undefined)) staleHere.set(address, watched);
          else for (const b of watched) values.set(watchKey(b), b.balance!);
        }
        if (staleHere.size > 0) stale.push({ source, byAddress: staleHere, scripts: [...staleHere.keys()].flatMap((a) => hashesOf(platform, a) ?? []) });
      }
      for (const { scripts } of stale) for (const h of scripts) changed.delete(h); // a notification during the read marks it again
      // Read at once through one coalesced batch: one request however many coins changed. The
      // newest block's coinbase goes in it too (asked first, so known before the reads decide):
      // an output of that block needs no transaction.get to tell it is not an immature coinbase.
      const shared = coalescedBatch((calls) => connection.batchSettled(calls, signal));
      const memos = stale.flatMap(({ source }) => (source.memo === undefined ? [] : [source.memo]));
      const newest = tip;
      const coinbase =
        memos.length === 0 || newest === 0
          ? Promise.resolve()
          : shared([{ method: 'blockchain.transaction.id_from_pos', params: [newest, 0] }]).then(
              ([txid]) => typeof txid === 'string' && memos.forEach((m) => m.setBlockCoinbase(newest, txid)),
              () => undefined, // an old server without it: the reads fetch what they must
            );
      const reads = stale.map(({ source, byAddress, scripts }) =>
        source.read(shared, [...byAddress.keys()]).then(
          (now) => {
            block = Math.max(block, now.currentBlock);
            for (const [address, watched] of byAddress) for (const b of watched) values.set(watchKey(b), now.balances.get(address)!);
          },
          (error: unknown) => {
            for (const h of scripts) changed.add(h);
            throw error;
          },
        ),
      );
      const failed = (await Promise.allSettled([coinbase, ...reads])).find((r) => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      tip = Math.max(tip, block);
      return { block, balances: values };
    }, signal);
  }

  return {
    key,
    pollMs: own.pollMs ?? DEFAULT_BALANCE_POLL_MS,
    readBlock: (signal) =>
      own.pool.use(async (connection) => {
        const height = heightOf(await connection.request('blockchain.headers.subscribe', [], signal));
        tip = Math.max(tip, height);
        // Reachable again but not subscribed here: a read subscribes (a reconnected server).
        if (listener !== undefined && subscribed?.connection !== connection) queueMicrotask(() => listener?.changed());
        return height;
      }, signal),
    read,
    followHeads(heard: HeadListener) {
      listener = heard;
      const stop = own.pool.follow({
        notification(connection, method, params) {
          if (connection !== subscribed?.connection || !Array.isArray(params)) return;
          if (method === 'blockchain.headers.subscribe') {
            const height = heightOf(params[0]);
            tip = Math.max(tip, height);
            heard.head(height);
          } else if (method === 'blockchain.scripthash.subscribe' && subscribed.hashes.has(String(params[0]))) {
            changed.add(String(params[0]));
            heard.changed();
          }
        },
        closed(connection) {
          if (connection !== subscribed?.connection) return;
          subscribed = undefined;
          heard.lost();
          heard.changed(); // read (and subscribe) again on the next connection
        },
      });
      // After the WATCH that follows the join (sent in the same turn), a read subscribes the coin.
      const readAgain = () => queueMicrotask(() => listener?.changed());
      running.set(key, readAgain);
      readAgain(); // the first read subscribes every script hash
      return () => {
        listener = undefined;
        if (running.get(key) === readAgain) running.delete(key);
        stop();
      };
    },
    close: () => undefined, // the pool is the coin's, closed when the coin is released
  };
}
