/**
 * A withdrawal's wire form (the reference's `TransactionDetails`, wallet result of `withdraw`, of a
 * `task::withdraw` `Ok` status and of legacy `withdraw`): the domain {@link PreparedWithdrawal} is
 * summarized once (exact decimal strings, fee details in their wire shape, spec 2.4 WithdrawFee),
 * and the summary is what events keep and what is rendered.
 */
import { formatAmount, formatFixed } from '../amount.ts';
import type { FeeDetails, PreparedWithdrawal } from '../withdraw.ts';
import type { WithdrawalSummary } from '../withdrawEvents.ts';

/** TRX has 6 decimals; the reference writes TRON fee fields at that fixed scale (`"0.000000"`). */
const TRX_DECIMALS = 6;
/** EVM gas prices are written in the platform coin per gas unit (`"0.0000000035"` = 3.5 gwei). */
const gasPrice = (wei: bigint, decimals: number) => formatAmount(wei, decimals);

/** The wire shape of one family's fee details: the one switch each family adds its case to. */
export function renderFeeDetails(fee: FeeDetails): { type: string; coin: string } & Record<string, unknown> {
  switch (fee.type) {
    case 'Eth':
      return {
        type: 'Eth',
        coin: fee.coin,
        gas: Number(fee.gas),
        gas_price: gasPrice(fee.gasPriceWei, fee.decimals),
        max_fee_per_gas: fee.maxFeePerGasWei === undefined ? null : gasPrice(fee.maxFeePerGasWei, fee.decimals),
        max_priority_fee_per_gas: fee.maxPriorityFeePerGasWei === undefined ? null : gasPrice(fee.maxPriorityFeePerGasWei, fee.decimals),
        total_fee: formatAmount(fee.totalFee, fee.decimals),
      };
    case 'Utxo':
      return { type: 'Utxo', coin: fee.coin, amount: formatAmount(fee.amount, fee.decimals) };
    case 'Qrc20':
      return {
        type: 'Qrc20',
        coin: fee.coin,
        miner_fee: formatAmount(fee.minerFee, fee.decimals),
        gas_limit: Number(fee.gasLimit),
        gas_price: Number(fee.gasPrice),
        total_gas_fee: formatAmount(fee.totalGasFee, fee.decimals),
      };
    case 'Tron':
      return {
        type: 'Tron',
        coin: fee.coin,
        bandwidth_used: fee.bandwidthUsed,
        energy_used: fee.energyUsed,
        bandwidth_fee: formatFixed(fee.bandwidthFee, TRX_DECIMALS),
        energy_fee: formatFixed(fee.energyFee, TRX_DECIMALS),
        ...(fee.accountCreationFee === undefined ? {} : { account_creation_fee: formatFixed(fee.accountCreationFee, TRX_DECIMALS) }),
        total_fee: formatFixed(fee.totalFee, TRX_DECIMALS),
      };
  }
}

/** The prepared withdrawal of `coin` (amounts at its `decimals`) as events keep it. */
export function summarizeWithdrawal(coin: string, decimals: number, prepared: PreparedWithdrawal, memo?: string): WithdrawalSummary {
  return {
    coin,
    txHex: prepared.txHex,
    txHash: prepared.txHash,
    from: [...prepared.from],
    to: [...prepared.to],
    totalAmount: formatAmount(prepared.totalAmount, decimals),
    spentByMe: formatAmount(prepared.spentByMe, decimals),
    receivedByMe: formatAmount(prepared.receivedByMe, decimals),
    myBalanceChange: formatAmount(prepared.myBalanceChange, decimals),
    feeDetails: renderFeeDetails(prepared.feeDetails),
    timestamp: prepared.timestamp,
    ...(memo === undefined ? {} : { memo }),
  };
}

/** The reference's `TransactionDetails` of a summary (v2 `result`, task `details`, legacy flat body). */
export function renderWithdrawResult(summary: WithdrawalSummary): Record<string, unknown> {
  return {
    tx_hex: summary.txHex,
    tx_hash: summary.txHash,
    from: summary.from,
    to: summary.to,
    total_amount: summary.totalAmount,
    spent_by_me: summary.spentByMe,
    received_by_me: summary.receivedByMe,
    my_balance_change: summary.myBalanceChange,
    block_height: 0,
    timestamp: summary.timestamp,
    fee_details: summary.feeDetails,
    coin: summary.coin,
    internal_id: '',
    transaction_type: 'StandardTransfer',
    memo: summary.memo ?? null,
  };
}
