/**
 * The entries of listed transactions from whatever reads raw transactions and block times (an
 * Electrum pool, a native daemon): the transactions, then the ones their inputs spend, then the times
 * of their blocks, each step in as few reads as the reader makes of it. Raw transactions are kept in
 * memory between calls (inputs often spend earlier entries).
 */
import type { ListedTx, TxRecord } from '../../../actors/history/historyPort.ts';
import type { ScriptAddresser } from './scriptAddress.ts';
import { parseTx, prevTxid, txRecord, type ParsedTx } from './txRecords.ts';

/** Raw transactions kept in memory between chunks. @default 5000 */
const TX_CACHE = 5_000;

export interface RawTxReader {
  /** The raw transactions (hex) of `hashes`, in order. */
  rawTxs(hashes: readonly string[], signal: AbortSignal): Promise<string[]>;
  /** The block time of each height, in order. */
  blockTimes(heights: readonly number[], signal: AbortSignal): Promise<number[]>;
}

/** `details` of a history source over `reader`; `mine()` gives the wallet's output scripts (hex). */
export function txDetails(reader: RawTxReader, mine: () => ReadonlySet<string>, addressOf: ScriptAddresser): (txs: readonly ListedTx[], signal: AbortSignal) => Promise<TxRecord[]> {
  const cache = new Map<string, ParsedTx>();
  const remember = (hash: string, tx: ParsedTx) => {
    if (cache.size >= TX_CACHE) cache.delete(cache.keys().next().value!);
    cache.set(hash, tx);
  };
  async function fetch(hashes: readonly string[], signal: AbortSignal): Promise<void> {
    const wanted = [...new Set(hashes)].filter((h) => !cache.has(h));
    const hexes = await reader.rawTxs(wanted, signal);
    wanted.forEach((h, i) => remember(h, parseTx(hexes[i]!)));
  }
  return async (txs, signal) => {
    await fetch(txs.map((t) => t.txHash), signal);
    const own = new Map(txs.map((t) => [t.txHash, cache.get(t.txHash)!]));
    await fetch([...own.values()].flatMap(({ tx }) => (tx.isCoinbase() ? [] : tx.ins.map(prevTxid))), signal);
    const heights = [...new Set(txs.map((t) => t.height).filter((h) => h > 0))];
    const times = new Map((await reader.blockTimes(heights, signal)).map((time, i) => [heights[i]!, time]));
    const scripts = mine();
    return txs.map((t) => txRecord(t.txHash, own.get(t.txHash)!, t.height, times.get(t.height) ?? 0, (id) => cache.get(id), scripts, addressOf));
  };
}
