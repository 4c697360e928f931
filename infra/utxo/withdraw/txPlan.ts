/**
 * Coin selection, fee and change of a UTXO withdrawal, exactly as the reference builds them
 * (KDF `utxo/utxo_common.rs` `UtxoTxBuilder::build`, `tx_size_in_v_bytes`; `utxo.rs` `ActualFeeRate`):
 * unspent outputs sorted ascending by value and added smallest-first until they cover the outputs
 * and the fee; the fee first sized without a change output, then again with it; change below dust is
 * left to the miner; `max` sends everything with the fee deducted from the one output. Pure: no I/O.
 */

/** An unspent output of the sender, with the script that locks it (what signing needs). */
export interface Unspent {
  /** Transaction id as shown (big-endian hex). */
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly script: Uint8Array;
}

export interface TxOutput {
  readonly script: Uint8Array;
  readonly value: bigint;
}

/**
 * A fee rate in smallest units per 1000 bytes (virtual bytes for segwit senders). `perKb` is both
 * `UtxoPerKbyte` and, since the reference's v3, `UtxoFixed`; `perStartedKb` is `dingo_fee`.
 */
export type FeeRate = { readonly kind: 'perKb'; readonly rate: bigint } | { readonly kind: 'perStartedKb'; readonly rate: bigint };

export interface TxPlanRequest {
  /** Any order: sorted here. */
  readonly unspents: readonly Unspent[];
  /** The outputs to pay; with `deductFeeFromFirst` the fee comes out of the first (`max`). */
  readonly outputs: readonly TxOutput[];
  readonly deductFeeFromFirst: boolean;
  /** Where change goes: the sender's own script. */
  readonly changeScript: Uint8Array;
  readonly feeRate: FeeRate;
  /** With `force_min_relay_fee`: the node's relay fee per kB, a floor for the fee. */
  readonly minRelayRate?: bigint;
  readonly dust: bigint;
  /** A P2WPKH sender: the fee is sized by the segwit weight formula. */
  readonly segwitSender: boolean;
  /** QRC20: the contract's gas (gas_limit × gas_price), paid by the inputs beside the miner fee. */
  readonly gasFee?: bigint;
}

export interface TxPlan {
  readonly inputs: readonly Unspent[];
  /** The requested outputs (the first reduced by the fee for `max`), then any change. */
  readonly outputs: readonly TxOutput[];
  /** The miner fee actually paid: inputs − outputs − gas (dust change dropped included). */
  readonly fee: bigint;
  /** Sum of the inputs. */
  readonly spent: bigint;
  /** Sum of the outputs paying the sender's own script. */
  readonly received: bigint;
}

/** Why no transaction can be built; the reference's `GenerateTxError` cases a withdrawal meets. */
export type TxPlanFailure =
  | { readonly failure: 'NoUnspents'; readonly required: bigint }
  | { readonly failure: 'OutputBelowDust'; readonly value: bigint; readonly dust: bigint }
  | { readonly failure: 'FeeExceedsOutput'; readonly outputValue: bigint; readonly required: bigint }
  | { readonly failure: 'NotEnoughUnspents'; readonly available: bigint; readonly required: bigint };

const OP_RETURN = 0x6a;
/** Bytes a signed input adds beyond its empty scriptSig: push lengths, a 72-byte DER signature with sighash, a compressed key. */
const SIGNED_INPUT_EXTRA = 2 + 72 + 33;

/** The fee for a transaction of `size` (virtual) bytes at `rate`. */
export function feeForSize(rate: FeeRate, size: number, minRelayRate?: bigint): bigint {
  const bytes = BigInt(size);
  const fee = rate.kind === 'perKb' ? (rate.rate * bytes) / 1000n : rate.rate * ((bytes + 999n) / 1000n);
  if (minRelayRate === undefined) return fee;
  const floor = (minRelayRate * bytes) / 1000n;
  return fee < floor ? floor : fee;
}

const varIntSize = (n: number) => (n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);

/** The size the reference charges for: the unsigned transaction plus what each signature will add. */
export function chargedSize(inputCount: number, outputs: readonly TxOutput[], segwitSender: boolean): number {
  const outputBytes = outputs.reduce((n, o) => n + 8 + varIntSize(o.script.length) + o.script.length, 0);
  const base = 4 + varIntSize(inputCount) + inputCount * 41 + varIntSize(outputs.length) + outputBytes + 4;
  if (!segwitSender) return base + inputCount * SIGNED_INPUT_EXTRA;
  const total = base + 4 + inputCount * (SIGNED_INPUT_EXTRA + 1);
  return Math.floor((3 * base + total) / 4);
}

/** Selects inputs, sizes the fee and adds change, or says why it cannot. */
export function planTx(request: TxPlanRequest): TxPlan | TxPlanFailure {
  const { outputs, dust, changeScript, deductFeeFromFirst } = request;
  if (outputs.length === 0) throw new Error('a transaction needs at least one output');
  for (const output of outputs) {
    if (output.script[0] !== OP_RETURN && output.value < dust) return { failure: 'OutputBelowDust', value: output.value, dust };
  }
  const available = [...request.unspents].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const gas = request.gasFee ?? 0n;
  const requested = outputs.reduce((sum, o) => sum + o.value, 0n);
  let feeNeeded = 0n;
  const required = () => requested + (deductFeeFromFirst ? 0n : feeNeeded + gas);
  if (available.length === 0) return { failure: 'NoUnspents', required: required() };
  const feeOf = (inputCount: number, txOutputs: readonly TxOutput[]) => feeForSize(request.feeRate, chargedSize(inputCount, txOutputs, request.segwitSender), request.minRelayRate);

  let sizedOnce = false;
  for (;;) {
    const target = required();
    const inputs: Unspent[] = [];
    let sumInputs = 0n;
    for (const unspent of available) {
      if (sumInputs >= target) break;
      inputs.push(unspent);
      sumInputs += unspent.value;
    }
    const txOutputs = outputs.map((o) => ({ ...o }));
    let sumOutputs = requested;
    if (!sizedOnce) {
      feeNeeded = feeOf(inputs.length, txOutputs); // first without change: it may fit between inputs and outputs
      sizedOnce = true;
    }
    if (sumInputs < target) return { failure: 'NotEnoughUnspents', available: sumInputs, required: required() };
    if (deductFeeFromFirst) {
      const first = txOutputs[0]!;
      const minimum = feeNeeded + gas + dust;
      if (first.value < minimum) return { failure: 'FeeExceedsOutput', outputValue: first.value, required: minimum };
      txOutputs[0] = { script: first.script, value: first.value - (feeNeeded + gas) };
      sumOutputs -= feeNeeded + gas;
    }
    const withFee = sumOutputs + feeNeeded + gas;
    const change = sumInputs >= withFee ? sumInputs - withFee : 0n;
    if (change >= dust && change > 0n) {
      txOutputs.push({ script: changeScript, value: change });
      sumOutputs += change;
    }
    feeNeeded = feeOf(inputs.length, txOutputs);
    if (sumInputs >= sumOutputs + feeNeeded + gas) {
      const received = txOutputs.filter((o) => sameBytes(o.script, changeScript)).reduce((sum, o) => sum + o.value, 0n);
      return { inputs, outputs: txOutputs, fee: sumInputs - gas - sumOutputs, spent: sumInputs, received };
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
