/**
 * A UTXO coin's history from its native daemon (issue 26; docs/compatibility.md §22): the wallet's
 * `listtransactions` (watch-only included: the service's address is imported watch-only, spec 1.5)
 * pages of 1,000 name the candidates; `getrawtransaction` (the daemon needs `txindex=1` for the
 * transactions other wallets made) and the block headers give the entries, at most
 * {@link NATIVE_CONCURRENCY} calls in flight, no wait. A candidate that pays or spends none of the
 * address's scripts (another watch-only address of the same wallet) is remembered and not asked
 * again. A daemon pushes nothing: new transactions are seen at the next block (the balance
 * watcher's poll runs the same `getblockcount`; the history asks its own).
 */
import { HistoryRefusedError, type HistoryAddress, type HistorySource, type ListedTx, type TxRecord } from '../../../actors/history/historyPort.ts';
import { DaemonRpcError, type RpcCall } from '../daemonRpc.ts';
import type { ScriptAddresser } from './scriptAddress.ts';
import { txDetails } from './txDetails.ts';

/** Daemon calls in flight at once. @default 8 */
export const NATIVE_CONCURRENCY = 8;
const PAGE = 1_000;

interface ListedEntry {
  txid?: unknown;
  address?: unknown;
  involvesWatchonly?: unknown;
  blockheight?: unknown;
  confirmations?: unknown;
}

export function nativeHistorySource(rpc: RpcCall, address: string, scripts: readonly Uint8Array[], addressOf: ScriptAddresser, pollBlock: (listener: (height: number) => void) => () => void): HistorySource {
  let requests = 0;
  const foreign = new Set<string>();
  const mine = new Set(scripts.map((s) => Buffer.from(s).toString('hex')));
  const call = async <T>(method: string, params: unknown[], signal: AbortSignal): Promise<T> => {
    requests++;
    try {
      return await rpc<T>(method, params, signal);
    } catch (error) {
      if (error instanceof DaemonRpcError && error.code !== undefined) throw new HistoryRefusedError(`${method}: ${error.message}`, error.code);
      throw error;
    }
  };
  const each = async <I, O>(items: readonly I[], work: (item: I) => Promise<O>): Promise<O[]> => {
    const out: O[] = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(NATIVE_CONCURRENCY, items.length) }, worker));
    return out;
  };
  const details = txDetails(
    {
      rawTxs: (hashes, signal) => each(hashes, (h) => call<string>('getrawtransaction', [h], signal)),
      blockTimes: (heights, signal) =>
        each(heights, async (h) => (await call<{ time: number }>('getblockheader', [await call<string>('getblockhash', [h], signal)], signal)).time),
    },
    () => mine,
    addressOf,
  );
  return {
    addresses: (): HistoryAddress[] => [{ address }],
    requests: () => requests,
    async list(signal) {
      const currentBlock = await call<number>('getblockcount', [], signal);
      const txs = new Map<string, number>();
      for (let skip = 0; ; skip += PAGE) {
        const page = await call<ListedEntry[]>('listtransactions', ['*', PAGE, skip, true], signal);
        for (const e of page) {
          if (typeof e.txid !== 'string' || foreign.has(e.txid) || (e.address !== address && e.involvesWatchonly !== true)) continue;
          if (typeof e.confirmations === 'number' && e.confirmations < 0) continue; // conflicted: not in the chain
          txs.set(e.txid, typeof e.blockheight === 'number' ? e.blockheight : 0);
        }
        if (page.length < PAGE) break;
      }
      return { currentBlock, txs: [...txs].map(([txHash, height]): ListedTx => ({ txHash, height })) };
    },
    async details(txs, signal): Promise<TxRecord[]> {
      const records = await details(txs, signal);
      for (const r of records) if (r.spentByMe === 0n && r.receivedByMe === 0n) foreign.add(r.txHash);
      return records.filter((r) => !foreign.has(r.txHash));
    },
    // A daemon pushes nothing: each new block may hold new transactions, so it lists again (one
    // pass, which reads the tip too; `block` first would start a second for an unconfirmed entry).
    follow: (listener) => pollBlock(() => listener.changed()),
  };
}
