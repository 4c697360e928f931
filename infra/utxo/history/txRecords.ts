/**
 * A history entry from raw transactions (pure): the amounts of the reference's v2 builder
 * (`total_amount` = inputs, so 0 for a coinbase; `spent_by_me` = my inputs, `received_by_me` = my outputs), the fee as
 * inputs less outputs (none for a coinbase), `from`/`to` sorted without repeats.
 */
import { Transaction } from 'bitcoinjs-lib';
import type { TxRecord } from '../../../actors/history/historyPort.ts';
import type { ScriptAddresser } from './scriptAddress.ts';

/** A parsed transaction with its hex. */
export interface ParsedTx {
  readonly hex: string;
  readonly tx: Transaction;
}

export function parseTx(hex: string): ParsedTx {
  return { hex, tx: Transaction.fromHex(hex) };
}

/** The txid an input spends, in display order. */
export const prevTxid = (input: Transaction['ins'][number]): string => Buffer.from(input.hash).reverse().toString('hex');

/**
 * The entry of `parsed` at `height` (0: unconfirmed) and `timestamp`. `prev` gives the transactions
 * its inputs spend; `mine` tells the wallet's scripts (hex).
 */
export function txRecord(
  txHash: string,
  parsed: ParsedTx,
  height: number,
  timestamp: number,
  prev: (txid: string) => ParsedTx | undefined,
  mine: ReadonlySet<string>,
  addressOf: ScriptAddresser,
): TxRecord {
  const { tx } = parsed;
  const coinbase = tx.isCoinbase();
  const from = new Set<string>();
  const to = new Set<string>();
  let totalAmount = 0n;
  let spentByMe = 0n;
  if (!coinbase) {
    for (const input of tx.ins) {
      const spent = prev(prevTxid(input))?.tx.outs[input.index];
      if (spent === undefined) throw new Error(`${txHash}: the output ${prevTxid(input)}:${input.index} it spends was not fetched`);
      totalAmount += spent.value;
      if (mine.has(Buffer.from(spent.script).toString('hex'))) spentByMe += spent.value;
      const address = addressOf(spent.script);
      if (address !== undefined) from.add(address);
    }
  }
  let outputs = 0n;
  let receivedByMe = 0n;
  for (const output of tx.outs) {
    outputs += output.value;
    if (mine.has(Buffer.from(output.script).toString('hex'))) receivedByMe += output.value;
    const address = addressOf(output.script);
    if (address !== undefined) to.add(address);
  }
  return {
    txHash,
    txHex: parsed.hex,
    blockHeight: height,
    timestamp: height > 0 ? timestamp : 0,
    from: [...from].sort(),
    to: [...to].sort(),
    totalAmount,
    spentByMe,
    receivedByMe,
    fee: coinbase ? null : totalAmount - outputs,
  };
}

/** The block time in an Electrum block header (hex): 4 bytes little-endian at offset 68. */
export function headerTime(headerHex: string): number {
  const bytes = Buffer.from(headerHex, 'hex');
  if (bytes.length < 72) throw new Error('block header is shorter than 72 bytes');
  return bytes.readUInt32LE(68);
}
