/**
 * A UTXO coin's withdrawal (KDF `utxo/utxo_withdraw.rs` `build`): check the destination, read the
 * sender's unspent outputs (and the fee rate where the node gives it), plan inputs, fee and change,
 * and only then sign. Every check fails before anything is signed.
 */
import type { CoinEntry } from '../../../spec/coins.ts';
import { UtxoAddressFormat, utxoWallet, type UtxoAddressRule } from '../utxoAddress.ts';
import { coinTxParams, type CoinTxParams } from './coinTxParams.ts';
import { destinationScript } from './destination.ts';
import { signTx, type DigestSigner } from './signTx.ts';
import { planTx, type FeeRate, type TxOutput, type TxPlan, type TxPlanFailure } from './txPlan.ts';
import type { WithdrawChain, WithdrawRead } from './withdrawChain.ts';

/** The fee a request may set for a UTXO coin, in smallest units per kB. */
export type UtxoFeeRequest = { readonly type: 'UtxoFixed' | 'UtxoPerKbyte'; readonly perKb: bigint };

export interface UtxoWithdrawCoin {
  readonly entry: CoinEntry;
  readonly addressRule: UtxoAddressRule;
  readonly decimals: number;
  readonly matureConfirmations: number;
  readonly chain: WithdrawChain;
}

export interface UtxoWithdrawOrder {
  readonly to: string;
  readonly amount: bigint | 'max';
  readonly fee?: UtxoFeeRequest;
}

/** Why a withdrawal was refused before signing (rendered as the spec's errors at the capability). */
export type UtxoWithdrawFailure =
  | { readonly failure: 'InvalidAddress'; readonly message: string }
  | { readonly failure: 'Unsupported'; readonly message: string }
  | { readonly failure: 'InvalidFee'; readonly message: string }
  /** `coin`/`decimals`: whose balance is short, when not the withdrawn coin's (a QRC20's platform). */
  | { readonly failure: 'NotSufficientBalance'; readonly available: bigint; readonly required: bigint; readonly coin?: string; readonly decimals?: number }
  | { readonly failure: 'AmountTooLow'; readonly amount: bigint; readonly threshold: bigint }
  | { readonly failure: 'ZeroBalanceToWithdrawMax' };

export class UtxoWithdrawRefused extends Error {
  constructor(readonly refusal: UtxoWithdrawFailure) {
    super(refusal.failure);
    this.name = 'UtxoWithdrawRefused';
  }
}

export interface UtxoWithdrawal {
  readonly txHex: string;
  readonly txHash: string;
  readonly from: string;
  readonly to: string;
  /** Sum of the inputs (the reference's `total_amount` and `spent_by_me`). */
  readonly spent: bigint;
  /** Change (and anything paid to the sender itself). */
  readonly received: bigint;
  readonly fee: bigint;
  readonly plan: TxPlan;
  /** Node round trips the read took. */
  readonly roundTrips: number;
}

/** The checks a request can fail without a node: the coin's support and the destination. */
export function checkOrder(coin: UtxoWithdrawCoin, order: UtxoWithdrawOrder): { params: CoinTxParams; output: Uint8Array } {
  const found = coinTxParams(coin.entry, coin.addressRule, coin.decimals);
  if ('problem' in found) throw new UtxoWithdrawRefused({ failure: 'Unsupported', message: found.problem });
  const destination = destinationScript(order.to, found.params);
  if ('problem' in destination) throw new UtxoWithdrawRefused({ failure: 'InvalidAddress', message: destination.problem });
  return { params: found.params, output: destination.script };
}

/** A planned, unsigned withdrawal: what both signers (key provider, device) start from. */
export interface PlannedWithdrawal {
  readonly params: CoinTxParams;
  readonly plan: TxPlan;
  readonly senderAddress: string;
  readonly roundTrips: number;
}

/** Reads the sender's outputs and plans the transaction; refuses with the spec's errors. */
export async function planWithdrawal(coin: UtxoWithdrawCoin, order: UtxoWithdrawOrder, senderKey: Uint8Array, signal: AbortSignal): Promise<PlannedWithdrawal> {
  const { params, output } = checkOrder(coin, order);
  const wallet = utxoWallet(senderKey, coin.addressRule);
  const read = await coin.chain.read(
    {
      address: wallet.address,
      scripts: wallet.scripts,
      ...(order.fee === undefined && params.fee.kind === 'estimate' ? { estimateBlocks: params.fee.blocks } : {}),
      relayFee: params.forceMinRelayFee,
      matureConfirmations: coin.matureConfirmations,
      decimals: coin.decimals,
    },
    signal,
  );
  const max = order.amount === 'max';
  const value = max ? read.unspents.reduce((sum, u) => sum + u.value, 0n) : (order.amount as bigint);
  const outputs: TxOutput[] = [{ script: output, value }];
  const planned = planTx({
    unspents: read.unspents,
    outputs,
    deductFeeFromFirst: max,
    changeScript: wallet.scripts[0]!,
    feeRate: feeRateOf(order, params, read),
    ...(read.relayPerKb === undefined ? {} : { minRelayRate: read.relayPerKb }),
    dust: params.dust,
    segwitSender: coin.addressRule.format === UtxoAddressFormat.Segwit,
  });
  if ('failure' in planned) throw new UtxoWithdrawRefused(refusalOf(planned));
  return { params, plan: planned, senderAddress: wallet.address, roundTrips: read.roundTrips };
}

/** Plans and signs with a key that signs digests. */
export async function prepareUtxoWithdrawal(coin: UtxoWithdrawCoin, order: UtxoWithdrawOrder, signer: DigestSigner, nowSeconds: number, signal: AbortSignal): Promise<UtxoWithdrawal> {
  const planned = await planWithdrawal(coin, order, signer.publicKey, signal);
  signal.throwIfAborted();
  const { params, plan } = planned;
  const signed = await signTx(plan, { txVersion: params.txVersion, forkId: params.forkId, forkIdSignatures: params.forkIdSignatures, lockTime: nowSeconds }, signer);
  return withdrawalOf(planned, order.to, signed);
}

/** The withdrawal of a planned transaction once signed (by whichever signer). */
export function withdrawalOf(planned: PlannedWithdrawal, to: string, signed: { hex: string; txid: string }): UtxoWithdrawal {
  const { plan } = planned;
  return { txHex: signed.hex, txHash: signed.txid, from: planned.senderAddress, to, spent: plan.spent, received: plan.received, fee: plan.fee, plan, roundTrips: planned.roundTrips };
}

/** The request's rate, else the coin's (`txfee`, `dingo_fee`, or the node's estimate). */
function feeRateOf(order: UtxoWithdrawOrder, params: CoinTxParams, read: WithdrawRead): FeeRate {
  if (order.fee !== undefined) return { kind: 'perKb', rate: order.fee.perKb };
  switch (params.fee.kind) {
    case 'perKb':
    case 'perStartedKb':
      return { kind: params.fee.kind, rate: params.fee.rate };
    case 'estimate':
      return { kind: 'perKb', rate: read.estimatePerKb ?? 1000n };
  }
}

/** The reference's mapping of `GenerateTxError` to `WithdrawError` (KDF `lp_coins.rs` `from_generate_tx_error`). */
function refusalOf(failure: TxPlanFailure): UtxoWithdrawFailure {
  switch (failure.failure) {
    case 'NoUnspents':
      return { failure: 'NotSufficientBalance', available: 0n, required: failure.required };
    case 'OutputBelowDust':
      return { failure: 'AmountTooLow', amount: failure.value, threshold: failure.dust };
    case 'FeeExceedsOutput':
      return { failure: 'NotSufficientBalance', available: failure.outputValue, required: failure.required };
    case 'NotEnoughUnspents':
      return { failure: 'NotSufficientBalance', available: failure.available, required: failure.required };
  }
}
