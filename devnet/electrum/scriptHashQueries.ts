/**
 * Electrum 1.4's script-hash answers (balance, UTXOs, history, status) from a synced chain index
 * plus one mempool snapshot, with ElectrumX's semantics. Values are litoshis as JSON integers:
 * `Number` is exact for any amount, since 84M LTC = 8.4e15 litoshis < 2^53.
 */
import type { ChainIndex } from './chainIndex.ts';
import { sha256Hex } from './hashes.ts';
import type { MempoolTx } from './mempool.ts';
import { outpointKey, type TxOutput } from './verboseTx.ts';

/** A consistent read: the index synced to the tip, and the mempool at that tip. */
export interface ChainView {
  chain: ChainIndex;
  mempool: ReadonlyMap<string, MempoolTx>;
}

export interface Utxo {
  tx_hash: string;
  tx_pos: number;
  /** 0 for a mempool transaction. */
  height: number;
  value: number;
}

export interface HistoryItem {
  tx_hash: string;
  /** Block height; for mempool transactions 0, or -1 when spending another mempool transaction. */
  height: number;
  /** Mempool transactions only: the fee in litoshis. */
  fee?: number;
}

/** The output `txid:n` (confirmed or in the mempool), if it pays `scriptHash`. */
function ownOutput(view: ChainView, scriptHash: string, txid: string, n: number): TxOutput | undefined {
  const output = view.chain.output(txid, n) ?? view.mempool.get(txid)?.outputs.find((o) => o.n === n);
  return output?.scriptHash === scriptHash ? output : undefined;
}

function mempoolSpends(view: ChainView): Set<string> {
  return new Set([...view.mempool.values()].flatMap((tx) => tx.inputs.map((i) => outpointKey(i.txid, i.n))));
}

/** `confirmed`: the UTXOs at the tip; `unconfirmed`: the mempool's delta to that (can be negative). */
export function scriptHashBalance(view: ChainView, scriptHash: string): { confirmed: number; unconfirmed: number } {
  let confirmed = 0n;
  for (const output of view.chain.outputsOf(scriptHash)) {
    if (!view.chain.spender(output.txid, output.n)) confirmed += output.value;
  }
  let unconfirmed = 0n;
  for (const tx of view.mempool.values()) {
    for (const output of tx.outputs) if (output.scriptHash === scriptHash) unconfirmed += output.value;
    for (const input of tx.inputs) unconfirmed -= ownOutput(view, scriptHash, input.txid, input.n)?.value ?? 0n;
  }
  return { confirmed: Number(confirmed), unconfirmed: Number(unconfirmed) };
}

/** Confirmed UTXOs in chain order, then mempool ones (sorted by txid, output); none spent in the mempool. */
export function scriptHashUtxos(view: ChainView, scriptHash: string): Utxo[] {
  const spent = mempoolSpends(view);
  const confirmed = view.chain.outputsOf(scriptHash).filter((o) => !view.chain.spender(o.txid, o.n));
  const unconfirmed = [...view.mempool.values()]
    .flatMap((tx) => tx.outputs.filter((o) => o.scriptHash === scriptHash).map((o) => ({ ...o, txid: tx.txid, height: 0 })))
    .sort((a, b) => (a.txid === b.txid ? a.n - b.n : a.txid < b.txid ? -1 : 1));
  return [...confirmed, ...unconfirmed]
    .filter((o) => !spent.has(outpointKey(o.txid, o.n)))
    .map((o) => ({ tx_hash: o.txid, tx_pos: o.n, height: o.height, value: Number(o.value) }));
}

/** Mempool transactions paying or spending the script hash, ordered by (-height, tx_hash) as the status needs. */
export function scriptHashMempool(view: ChainView, scriptHash: string): Required<HistoryItem>[] {
  const touches = (tx: MempoolTx) =>
    tx.outputs.some((o) => o.scriptHash === scriptHash) || tx.inputs.some((i) => ownOutput(view, scriptHash, i.txid, i.n) !== undefined);
  return [...view.mempool.values()]
    .filter(touches)
    .map((tx) => ({ tx_hash: tx.txid, height: tx.hasUnconfirmedInputs ? -1 : 0, fee: Number(tx.fee) }))
    .sort((a, b) => b.height - a.height || (a.tx_hash < b.tx_hash ? -1 : a.tx_hash > b.tx_hash ? 1 : 0));
}

/** Confirmed history in chain order, then {@link scriptHashMempool}. */
export function scriptHashHistory(view: ChainView, scriptHash: string): HistoryItem[] {
  const confirmed = view.chain.historyOf(scriptHash).map((tx) => ({ tx_hash: tx.txid, height: tx.height }));
  return [...confirmed, ...scriptHashMempool(view, scriptHash)];
}

/** sha256 of the concatenated `tx_hash:height:` of the history, hex; null without history. */
export function scriptHashStatus(view: ChainView, scriptHash: string): string | null {
  const history = scriptHashHistory(view, scriptHash);
  return history.length === 0 ? null : sha256Hex(history.map((h) => `${h.tx_hash}:${h.height}:`).join(''));
}
