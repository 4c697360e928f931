/**
 * A UTXO coin's history over its Electrum pool (issue 26; docs/compatibility.md §22): one
 * `blockchain.scripthash.get_history` batch for every script of every address, then per chunk the
 * raw transactions (`blockchain.transaction.get`), the transactions their inputs spend, and the block
 * headers of their heights (for the time), each in batches of {@link HISTORY_BATCH} calls with at most
 * {@link HISTORY_CONCURRENCY} batches in flight. No wait between transactions. Every batch goes
 * through `ElectrumPool.use`, so a server that drops mid-sync is replaced by the next one for the
 * next batch, and what was stored stays stored. New transactions are heard from the notifications of
 * the subscriptions the balance watcher holds (`ElectrumPool.follow`): nothing is subscribed twice.
 */
import { HistoryRefusedError, type HistoryAddress, type HistorySource, type ListedTx } from '../../../actors/history/historyPort.ts';
import type { ElectrumCall } from '../../electrum/electrumConnection.ts';
import { ElectrumRpcError } from '../../electrum/electrumConnection.ts';
import type { ElectrumPool } from '../../electrum/electrumPool.ts';
import { electrumScripthash } from '../utxoAddress.ts';
import type { ScriptAddresser } from './scriptAddress.ts';
import { headerTime } from './txRecords.ts';
import { txDetails } from './txDetails.ts';

/** Calls per JSON-RPC batch. @default 100 */
export const HISTORY_BATCH = 100;
/** Batches in flight at once on the pool. @default 4 */
export const HISTORY_CONCURRENCY = 4;

/** An address of the coin with the output scripts that pay it. */
export interface HistoryWallet extends HistoryAddress {
  readonly scripts: readonly Uint8Array[];
}

export interface ElectrumHistoryOptions {
  readonly pool: ElectrumPool;
  /**
   * The coin's addresses: the enabled one, or every listed address of an HD account. The balance
   * watcher subscribes each one's script hashes; their notifications trigger a pass. An account
   * that lists more gets a new source (the family rebuilds it when its listing changes).
   */
  readonly wallets: readonly HistoryWallet[];
  readonly addressOf: ScriptAddresser;
}

export function electrumHistorySource(options: ElectrumHistoryOptions): HistorySource {
  const { pool, addressOf, wallets } = options;
  const batchSize = HISTORY_BATCH;
  const concurrency = HISTORY_CONCURRENCY;
  let requests = 0;

  /** `calls` in batches, at most `concurrency` in flight; results in call order. */
  async function callAll(calls: readonly ElectrumCall[], signal: AbortSignal): Promise<unknown[]> {
    const batches: ElectrumCall[][] = [];
    for (let i = 0; i < calls.length; i += batchSize) batches.push(calls.slice(i, i + batchSize));
    const results: unknown[][] = new Array(batches.length);
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const index = next++;
        const batch = batches[index]!;
        requests += batch.length;
        results[index] = await pool.use((connection) => connection.batch(batch, signal), signal).catch(refusal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
    return results.flat();
  }

  /** The scripts that pay the coin (hex), and their script hashes. */
  const mine = new Set(wallets.flatMap((w) => w.scripts.map((s) => Buffer.from(s).toString('hex'))));
  const hashes = [...new Set(wallets.flatMap((w) => w.scripts.map(electrumScripthash)))];
  const watched = new Set(hashes);

  const details = txDetails(
    {
      rawTxs: async (hashes, signal) => (await callAll(hashes.map((h) => ({ method: 'blockchain.transaction.get', params: [h] })), signal)).map(String),
      blockTimes: async (heights, signal) => (await callAll(heights.map((h) => ({ method: 'blockchain.block.header', params: [h] })), signal)).map((header) => headerTime(String(header))),
    },
    () => mine,
    addressOf,
  );

  return {
    addresses: () => wallets.map(({ address, hd }) => (hd === undefined ? { address } : { address, hd })),
    requests: () => requests,

    async list(signal) {
      const calls = [{ method: 'blockchain.headers.subscribe', params: [] }, ...hashes.map((h) => ({ method: 'blockchain.scripthash.get_history', params: [h] }))];
      const [tip, ...histories] = await callAll(calls, signal);
      const height = (tip as { height?: unknown } | null)?.height;
      if (typeof height !== 'number') throw new Error('blockchain.headers.subscribe: no height');
      const txs = new Map<string, number>();
      for (const history of histories) {
        if (!Array.isArray(history)) throw new Error('blockchain.scripthash.get_history: not a list');
        for (const item of history as { tx_hash?: unknown; height?: unknown }[]) {
          if (typeof item.tx_hash !== 'string' || typeof item.height !== 'number') throw new Error('blockchain.scripthash.get_history: malformed entry');
          txs.set(item.tx_hash, Math.max(0, item.height)); // -1 (unconfirmed parent) is unconfirmed too
        }
      }
      return { currentBlock: height, txs: [...txs].map(([txHash, h]): ListedTx => ({ txHash, height: h })) };
    },

    details,

    follow(listener) {
      return pool.follow({
        notification(_connection, method, params) {
          if (!Array.isArray(params)) return;
          if (method === 'blockchain.scripthash.subscribe' && watched.has(String(params[0]))) listener.changed();
          else if (method === 'blockchain.headers.subscribe') {
            const height = (params[0] as { height?: unknown } | null)?.height;
            if (typeof height === 'number') listener.block(height);
          }
        },
        closed: () => undefined,
      });
    },
  };
}

/** A server's refusal of a history call stops the sync at `Error` (the reference's `history too large`). */
function refusal(error: unknown): never {
  if (error instanceof ElectrumRpcError) throw new HistoryRefusedError(error.message, error.code ?? -1);
  throw error;
}

/**
 * The `historyOf` of an Electrum backend: the history of the given addresses over `pool`, each
 * address's scripts from `walletOf` (an address it does not know is a caller's bug).
 */
export function electrumHistoryOf(
  pool: ElectrumPool,
  addressOf: ScriptAddresser,
  walletOf: (address: string) => { readonly scripts: readonly Uint8Array[] } | undefined,
): (addresses: readonly HistoryAddress[]) => HistorySource {
  return (addresses) => {
    const wallets = addresses.map((a): HistoryWallet => {
      const wallet = walletOf(a.address);
      if (wallet === undefined) throw new Error(`not an address of the coin: ${a.address}`);
      return { ...a, scripts: wallet.scripts };
    });
    return electrumHistorySource({ pool, addressOf, wallets });
  };
}
