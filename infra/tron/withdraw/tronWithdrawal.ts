/**
 * A TRON withdrawal decided from the node's reads, with no I/O (the reference's
 * `mm2src/coins/eth/tron/withdraw.rs` and `eth_withdraw.rs` `build_tron_withdraw`): the balance
 * checks, the destination's state, the transaction and its fee. TRX `max` sends the balance less
 * the fee, re-estimating while the amount's varint size changes the fee; a TRC20 never reduces the
 * token amount, its fee is paid in TRX.
 */
import { formatAmount } from '../../../spec/amount.ts';
import { estimateFee, type TronDestination, type TronFeeDetails } from './tronFee.ts';
import type { TronWithdrawalReads } from './tronWithdrawReads.ts';
import { DEFAULT_EXPIRATION_SECONDS, trc20Transfer, trxTransfer } from './tronTransfer.ts';
import type { TronRawTransaction } from './tronProtobuf.ts';
import { amountTooLow, internalError, notSufficientBalance, zeroBalanceToWithdrawMax } from './tronWithdrawErrors.ts';

/** TRX's decimals (1 TRX = 10^6 SUN). */
export const TRX_DECIMALS = 6;
/** java-tron stores amounts and fee limits as int64. */
const INT64_MAX = (1n << 63n) - 1n;

export interface TronWithdrawalInput {
  /** The withdrawn coin's ticker and decimals; `contract` (EVM form) for a TRC20. */
  readonly coin: { readonly ticker: string; readonly decimals: number; readonly contract?: string };
  /** The platform coin that pays the fee (`TRX`). */
  readonly feeCoin: string;
  /** EVM-form sender and destination. */
  readonly from: string;
  readonly to: string;
  readonly amount: bigint | 'max';
  /** @default 60 */
  readonly expirationSeconds?: bigint;
  readonly reads: TronWithdrawalReads;
}

export interface TronWithdrawalPlan {
  readonly raw: TronRawTransaction;
  readonly fee: TronFeeDetails;
  /** What the destination receives, in the coin's base units. */
  readonly amount: bigint;
}

/** Decides the transaction; throws the reference's refusals before anything is signed. */
export function planTronWithdrawal(input: TronWithdrawalInput): TronWithdrawalPlan {
  const { coin, reads } = input;
  const balance = coin.contract === undefined ? reads.trxBalance : reads.tokenBalance!;
  if (input.amount === 'max' && balance === 0n) throw zeroBalanceToWithdrawMax();
  const amount = input.amount === 'max' ? balance : input.amount;
  if (amount > balance) throw notSufficientBalance(coin.ticker, formatAmount(balance, coin.decimals), formatAmount(amount, coin.decimals));
  if (amount > INT64_MAX && coin.contract === undefined) throw internalError(`amount ${amount} exceeds int64`);
  const expiry = input.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  return coin.contract === undefined ? planTrx(input, amount, expiry) : planTrc20(input, coin.contract, amount, expiry);
}

function planTrx(input: TronWithdrawalInput, requested: bigint, expiry: bigint): TronWithdrawalPlan {
  const { reads } = input;
  const destination = destinationOf(reads);
  let amount = requested;
  for (;;) {
    const raw = trxTransfer(input.from, input.to, amount, reads.block, expiry);
    const fee = estimateFee(raw, 0n, reads.resources, reads.prices, input.feeCoin, destination);
    const affordable = reads.trxBalance > fee.totalFeeSun ? reads.trxBalance - fee.totalFeeSun : 0n;
    if (affordable >= amount) return { raw, fee, amount };
    if (input.amount !== 'max') {
      throw notSufficientBalance(input.feeCoin, trx(reads.trxBalance), trx(amount + fee.totalFeeSun));
    }
    if (affordable === 0n) throw amountTooLow('0', trx(fee.totalFeeSun));
    // A smaller amount may have a shorter varint, so a smaller fee: estimate again (1–2 rounds).
    amount = affordable;
  }
}

function planTrc20(input: TronWithdrawalInput, contract: string, amount: bigint, expiry: bigint): TronWithdrawalPlan {
  const { reads } = input;
  const energyUsed = reads.energyUsed!;
  const feeLimit = energyUsed * reads.prices.energyPriceSun;
  if (feeLimit > INT64_MAX) throw internalError(`fee_limit ${feeLimit} exceeds int64`);
  const raw = trc20Transfer(input.from, contract, input.to, amount, feeLimit, reads.block, expiry);
  // The energy estimate already covers creating the recipient's account: never a creation fee.
  const fee = estimateFee(raw, energyUsed, reads.resources, reads.prices, input.feeCoin, { kind: 'Activated' });
  if (reads.trxBalance < fee.totalFeeSun) throw notSufficientBalance(input.feeCoin, trx(reads.trxBalance), trx(fee.totalFeeSun), true);
  return { raw, fee, amount };
}

/** A TRX transfer to a never-activated account pays its creation; a node without the fee is refused. */
function destinationOf(reads: TronWithdrawalReads): TronDestination {
  if (reads.destinationExists !== false) return { kind: 'Activated' };
  const prices = reads.prices;
  if (prices.createNewAccountFeeSun === 0n) {
    throw internalError('TRON node did not provide the CreateNewAccountFeeInSystemContract chain parameter; cannot estimate the fee of a transfer to a never-activated address');
  }
  return {
    kind: 'NewAccount',
    creationFeeSun: prices.createNewAccountFeeSun,
    bandwidthFallbackSun: prices.createAccountBandwidthFeeSun,
    bandwidthRate: prices.createNewAccountBandwidthRate,
  };
}

const trx = (sun: bigint) => formatAmount(sun, TRX_DECIMALS);
