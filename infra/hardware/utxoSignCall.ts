/**
 * A UTXO transaction signed on the device through `@trezor/connect` `signTransaction` (the
 * `SignTx`/`TxRequest`/`TxAck` rounds run inside connect), with the PIN and button flow of
 * publicKeyCall.ts. The previous transactions go as `refTxs`, so connect asks no backend.
 */
import { Transaction } from 'bitcoinjs-lib';
import type { Clock } from '../../kernel/clock.ts';
import type { Log } from '../../kernel/log.ts';
import type { PublicKeyRequest } from '../../actors/ports/hardwareWallet.ts';
import type { UtxoTxToSign } from '../../actors/ports/withdraw.ts';
import type { ConnectRuntime } from './connectRuntime.ts';
import { callDevice } from './publicKeyCall.ts';
import { hwError } from './hwErrors.ts';

const HARDENED = 0x80000000;

/** `m/44'/1'/0'/0/3` → the numbers a device message carries. */
function addressN(path: string): number[] {
  return path
    .split('/')
    .slice(1)
    .map((part) => (part.endsWith("'") ? Number(part.slice(0, -1)) + HARDENED : Number(part)));
}

/** A previous transaction as connect's `refTxs` entry. */
function refTx(txid: string, hex: string) {
  const tx = Transaction.fromHex(hex);
  return {
    hash: txid,
    version: tx.version,
    lock_time: tx.locktime,
    inputs: tx.ins.map((input) => ({
      prev_hash: Buffer.from(input.hash).reverse().toString('hex'),
      prev_index: input.index,
      script_sig: Buffer.from(input.script).toString('hex'),
      sequence: input.sequence,
    })),
    bin_outputs: tx.outs.map((output) => ({ amount: output.value.toString(), script_pubkey: Buffer.from(output.script).toString('hex') })),
  };
}

export async function signUtxoTransaction(runtime: ConnectRuntime, request: PublicKeyRequest & { readonly tx: UtxoTxToSign }, clock: Clock, log?: Log): Promise<{ txHex: string }> {
  const { tx } = request;
  const path = addressN(request.path);
  const changeType = tx.inputScriptType === 'SPENDWITNESS' ? 'PAYTOWITNESS' : 'PAYTOADDRESS';
  const params = {
    coin: tx.coinName,
    inputs: tx.inputs.map((input) => ({ address_n: path, prev_hash: input.prevHash, prev_index: input.prevIndex, amount: input.amount.toString(), script_type: tx.inputScriptType })),
    outputs: tx.outputs.map((output) =>
      'change' in output
        ? { address_n: path, amount: output.amount.toString(), script_type: changeType }
        : { address: output.address, amount: output.amount.toString(), script_type: 'PAYTOADDRESS' },
    ),
    refTxs: tx.previous.map((p) => refTx(p.txid, p.hex)),
    version: tx.version,
    locktime: tx.lockTime,
    push: false,
  };
  const payload = (await callDevice(runtime, request, clock, log, () => runtime.api.signTransaction(params as never) as never)) as { serializedTx?: unknown };
  if (typeof payload.serializedTx !== 'string' || !/^([0-9a-f]{2})+$/i.test(payload.serializedTx)) throw hwError('Failure', { detail: 'the device returned no signed transaction' });
  return { txHex: payload.serializedTx.toLowerCase() };
}
