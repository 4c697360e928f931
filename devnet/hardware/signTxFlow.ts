/**
 * The double's `SignTx` for Bitcoin-like coins, as a Trezor One 1.13 runs it with `@trezor/connect`:
 * after `SignTx` the device asks for what it needs one `TxRequest` at a time, and the host answers
 * each with a `TxAck` (on the wire every `TxAck*` is message 22, decoded as `TxAck`):
 * 1. each input (`TXINPUT`), then that input's previous transaction: its meta (`TXMETA`), every
 *    input and output (`TXINPUT`/`TXOUTPUT` with `tx_hash`); the device rebuilds it, checks its
 *    hash is the input's `prev_hash`, and that the output spent pays the input's key the amount
 *    claimed (so a host cannot lie about amounts);
 * 2. each output (`TXOUTPUT`): an address of the coin's network, or a path (change);
 * 3. the user confirms (`ButtonRequest_SignTx`), as for any button of the double;
 * 4. the device signs every input with its key (legacy sighash for `SPENDADDRESS`, BIP143 for
 *    `SPENDWITNESS`) and answers `TXFINISHED` with the whole serialized transaction.
 * Anything inconsistent fails with `Failure_DataError`. Not modelled: multisig, P2SH-wrapped
 * segwit, Zcash/Decred fields, fork-id coins, replacement transactions, payment requests.
 */
import { address as btcAddress, networks, payments, script as btcScript, Transaction, type Network } from 'bitcoinjs-lib';
import type { DeviceMessage, Fields } from './codec.ts';
import type { DeviceKeys } from './deviceKeys.ts';

/** The networks of the `coin_name`s the double signs for (connect's `coins.json` names). */
const NETWORKS: Readonly<Record<string, Network>> = {
  Bitcoin: networks.bitcoin,
  Testnet: networks.testnet,
  Litecoin: { ...networks.bitcoin, messagePrefix: '\x19Litecoin Signed Message:\n', bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 },
};

type Step = { readonly request: 'TXINPUT' | 'TXOUTPUT' | 'TXMETA'; readonly index: number; readonly txHash?: string };
interface CurrentInput {
  readonly path: number[];
  readonly prevHash: string;
  readonly prevIndex: number;
  readonly amount: bigint;
  readonly segwit: boolean;
}

const message = (name: string, fields: Fields = {}): DeviceMessage => ({ name, fields });
const dataError = (why: string): DeviceMessage => message('Failure', { code: 'Failure_DataError', message: why });
const txRequest = (step: Step): DeviceMessage =>
  message('TxRequest', { request_type: step.request, details: { request_index: step.index, ...(step.txHash === undefined ? {} : { tx_hash: step.txHash }) } });
const hexOf = (value: unknown) => (typeof value === 'string' ? value : Buffer.from(value as Uint8Array).toString('hex'));
const amountOf = (value: unknown) => BigInt(String(value ?? 0));

/** One signing session: `start` answers `SignTx`, `ack` each `TxAck`; `confirm` runs after the user's press. */
export interface SignTxFlow {
  start(fields: Fields): DeviceMessage[];
  /** The answer to a `TxAck`; `{ confirm }` when all is collected and the user must confirm before `finish`. */
  ack(fields: Fields): DeviceMessage[] | { readonly confirm: true };
  /** Signs and answers `TXFINISHED`. */
  finish(): DeviceMessage[];
}

export function createSignTxFlow(keys: DeviceKeys): SignTxFlow {
  let network: Network = networks.bitcoin;
  let meta = { version: 1, lockTime: 0, inputs: 0, outputs: 0 };
  const inputs: CurrentInput[] = [];
  const outputs: { script: Uint8Array; amount: bigint }[] = [];
  let steps: Step[] = [];
  let prev: { hash: string; version: number; lockTime: number; inputs: number; outputs: number; tx: Transaction } | undefined;

  const next = (): DeviceMessage[] | { readonly confirm: true } => {
    const step = steps.shift();
    return step === undefined ? { confirm: true } : [txRequest(step)];
  };

  /** After the last piece of a previous transaction: it must hash to the input's `prev_hash` and pay the input. */
  const checkPrevious = (input: CurrentInput): string | undefined => {
    const tx = prev!.tx;
    if (tx.getId() !== input.prevHash) return 'previous transaction does not match its hash';
    const spent = tx.outs[input.prevIndex];
    if (spent === undefined || spent.value !== input.amount) return 'input amount does not match the previous transaction';
    const pubkey = Buffer.from(keys.publicNode(input.path).node.public_key, 'hex');
    const own = input.segwit ? payments.p2wpkh({ pubkey }).output! : payments.p2pkh({ pubkey }).output!;
    if (!Buffer.from(spent.script).equals(Buffer.from(own))) return 'input is not paid to the key at its path';
    return undefined;
  };

  return {
    start(fields) {
      const found = NETWORKS[String(fields.coin_name ?? 'Bitcoin')];
      if (found === undefined) return [dataError('Invalid coin name')];
      network = found;
      meta = { version: Number(fields.version ?? 1), lockTime: Number(fields.lock_time ?? 0), inputs: Number(fields.inputs_count), outputs: Number(fields.outputs_count) };
      inputs.length = 0;
      outputs.length = 0;
      steps = [{ request: 'TXINPUT', index: 0 }];
      return next() as DeviceMessage[];
    },

    ack(fields) {
      const tx = (fields.tx ?? {}) as { inputs?: Fields[]; outputs?: Fields[]; bin_outputs?: Fields[]; version?: number | null; lock_time?: number | null; inputs_cnt?: number | null; outputs_cnt?: number | null };
      const last = inputs.at(-1);
      // Decoded messages carry every field: absent scalars are null, absent lists empty.
      if (tx.inputs_cnt != null) {
        if (last === undefined || prev !== undefined) return [dataError('unexpected TxAck meta')];
        // TXMETA of the previous transaction of the last input read
        prev = { hash: last.prevHash, version: Number(tx.version ?? 1), lockTime: Number(tx.lock_time ?? 0), inputs: tx.inputs_cnt, outputs: Number(tx.outputs_cnt), tx: new Transaction() };
        prev.tx.version = prev.version;
        prev.tx.locktime = prev.lockTime;
        const hash = prev.hash;
        steps.unshift(...Array.from({ length: prev.inputs }, (_, i): Step => ({ request: 'TXINPUT', index: i, txHash: hash })), ...Array.from({ length: prev.outputs }, (_, i): Step => ({ request: 'TXOUTPUT', index: i, txHash: hash })));
        return next();
      }
      if (prev !== undefined && tx.inputs?.[0] !== undefined) {
        const input = tx.inputs[0];
        prev.tx.addInput(Buffer.from(hexOf(input.prev_hash), 'hex').reverse(), Number(input.prev_index), Number(input.sequence ?? 0xffffffff), Buffer.from(hexOf(input.script_sig ?? ''), 'hex'));
        return next();
      }
      if (prev !== undefined && tx.bin_outputs?.[0] !== undefined) {
        const output = tx.bin_outputs[0];
        prev.tx.addOutput(Buffer.from(hexOf(output.script_pubkey), 'hex'), amountOf(output.amount));
        if (prev.tx.outs.length === prev.outputs) {
          const problem = checkPrevious(last!);
          prev = undefined;
          if (problem !== undefined) return [dataError(problem)];
        }
        return next();
      }
      if (tx.inputs?.[0] !== undefined) {
        const input = tx.inputs[0];
        const scriptType = String(input.script_type ?? 'SPENDADDRESS');
        if (scriptType !== 'SPENDADDRESS' && scriptType !== 'SPENDWITNESS') return [dataError(`unsupported input script type ${scriptType}`)];
        const current: CurrentInput = { path: ((input.address_n as unknown[]) ?? []).map(Number), prevHash: hexOf(input.prev_hash).toLowerCase(), prevIndex: Number(input.prev_index), amount: amountOf(input.amount), segwit: scriptType === 'SPENDWITNESS' };
        inputs.push(current);
        steps.unshift({ request: 'TXMETA', index: 0, txHash: current.prevHash });
        if (inputs.length < meta.inputs) steps.push({ request: 'TXINPUT', index: inputs.length });
        else steps.push(...Array.from({ length: meta.outputs }, (_, i): Step => ({ request: 'TXOUTPUT', index: i })));
        return next();
      }
      if (tx.outputs?.[0] !== undefined) {
        const output = tx.outputs[0];
        let script: Uint8Array;
        try {
          if (typeof output.address === 'string') script = btcAddress.toOutputScript(output.address, network);
          else {
            const pubkey = Buffer.from(keys.publicNode(((output.address_n as unknown[]) ?? []).map(Number)).node.public_key, 'hex');
            script = output.script_type === 'PAYTOWITNESS' ? payments.p2wpkh({ pubkey }).output! : payments.p2pkh({ pubkey }).output!;
          }
        } catch {
          return [dataError('Invalid output address')];
        }
        outputs.push({ script, amount: amountOf(output.amount) });
        return next();
      }
      return [dataError('unexpected TxAck')];
    },

    finish() {
      const tx = new Transaction();
      tx.version = meta.version;
      tx.locktime = meta.lockTime;
      for (const input of inputs) tx.addInput(Buffer.from(input.prevHash, 'hex').reverse(), input.prevIndex, 0xffffffff);
      for (const output of outputs) tx.addOutput(output.script, output.amount);
      inputs.forEach((input, index) => {
        const pubkey = Buffer.from(keys.publicNode(input.path).node.public_key, 'hex');
        const code = payments.p2pkh({ pubkey }).output!;
        const digest = input.segwit ? tx.hashForWitnessV0(index, code, input.amount, Transaction.SIGHASH_ALL) : tx.hashForSignature(index, code, Transaction.SIGHASH_ALL);
        const { r, s } = keys.signDigest(input.path, digest);
        const signature = btcScript.signature.encode(Buffer.from(`${r}${s}`, 'hex'), Transaction.SIGHASH_ALL);
        if (input.segwit) tx.setWitness(index, [signature, pubkey]);
        else tx.setInputScript(index, btcScript.compile([signature, pubkey]));
      });
      return [message('TxRequest', { request_type: 'TXFINISHED', serialized: { serialized_tx: tx.toHex() } })];
    },
  };
}
