/** What the index reads from litecoind's verbose transactions (`getblock <hash> 2`, `getrawtransaction <txid> true`). */
import { amountField } from '../../infra/utxo/daemonAmounts.ts';
import { scriptHashOf } from './hashes.ts';

/** A verbose transaction as parsed by `parseRpcJsonExact`: amounts are decimal strings. */
export interface VerboseTx {
  txid: string;
  /** Coinbase inputs carry `coinbase`; MWEB inputs (`ismweb`) spend MWEB outputs, not outpoints. */
  vin: { txid?: string; vout?: number; coinbase?: string; ismweb?: boolean }[];
  vout: { value: unknown; n: number; ismweb?: boolean; scriptPubKey?: { hex?: string } }[];
}

export interface Outpoint {
  txid: string;
  n: number;
}

export interface TxOutput {
  n: number;
  scriptHash: string;
  /** Litoshis. */
  value: bigint;
}

export const outpointKey = (txid: string, n: number) => `${txid}:${n}`;

/** The outpoints a transaction spends (none for a coinbase). */
export function txInputs(tx: VerboseTx): Outpoint[] {
  return tx.vin.flatMap((input) => (input.txid !== undefined && input.vout !== undefined && !input.ismweb ? [{ txid: input.txid, n: input.vout }] : []));
}

/** Its outputs with a script, keyed by Electrum script hash. */
export function txOutputs(tx: VerboseTx): TxOutput[] {
  return tx.vout.flatMap((output) => {
    const script = output.scriptPubKey?.hex;
    return script === undefined || output.ismweb ? [] : [{ n: output.n, scriptHash: scriptHashOf(script), value: amountField(output.value) }];
  });
}
