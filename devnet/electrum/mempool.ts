/** The unconfirmed half of the script-hash index: litecoind's mempool, read again on every query. */
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import type { RpcCall } from '../../infra/utxo/daemonRpc.ts';
import { txInputs, txOutputs, type Outpoint, type TxOutput, type VerboseTx } from './verboseTx.ts';

export interface MempoolTx {
  txid: string;
  /** Litoshis. */
  fee: bigint;
  /** Spends an output of another mempool transaction (Electrum's height -1). */
  hasUnconfirmedInputs: boolean;
  inputs: Outpoint[];
  outputs: TxOutput[];
}

export interface Mempool {
  /** The current mempool (`getrawmempool true`); transactions seen before are not fetched again. */
  snapshot(): Promise<ReadonlyMap<string, MempoolTx>>;
}

interface MempoolEntry {
  fees: { base: unknown };
  /** Unconfirmed parents: changes when a parent confirms, so it is read on every snapshot. */
  depends: string[];
}

/** A mempool reader over `rpc` (amounts parsed exactly). */
export function createMempool(rpc: RpcCall): Mempool {
  const decoded = new Map<string, Pick<MempoolTx, 'inputs' | 'outputs'>>();
  return {
    async snapshot() {
      const entries = await rpc<Record<string, MempoolEntry>>('getrawmempool', [true]);
      for (const txid of decoded.keys()) if (!(txid in entries)) decoded.delete(txid);
      const snapshot = new Map<string, MempoolTx>();
      for (const [txid, entry] of Object.entries(entries)) {
        let tx = decoded.get(txid);
        if (tx === undefined) {
          const verbose = await rpc<VerboseTx>('getrawtransaction', [txid, true]).catch(() => undefined);
          if (verbose === undefined) continue; // left the mempool since getrawmempool
          tx = { inputs: txInputs(verbose), outputs: txOutputs(verbose) };
          decoded.set(txid, tx);
        }
        snapshot.set(txid, { txid, fee: amountField(entry.fees.base), hasUnconfirmedInputs: entry.depends.length > 0, ...tx });
      }
      return snapshot;
    },
  };
}
