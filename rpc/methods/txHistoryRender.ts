/** History entries and sync states in the reference's wire shapes (docs/compatibility.md §22). */
import { formatAmount } from '../../spec/amount.ts';
import type { WireSyncStatus, WireTransactionDetails } from '../../spec/txHistory.ts';
import type { TxRecord } from '../../actors/history/historyPort.ts';
import type { SyncStatus } from '../../actors/history/historySync.ts';

/** A `TransactionDetails` entry; `confirmations` is added by `my_tx_history`, absent in stream frames. */
export function renderTransaction(record: TxRecord, coin: string, decimals: number, confirmations?: number): WireTransactionDetails {
  const amount = (value: bigint) => formatAmount(value, decimals);
  return {
    tx_hex: record.txHex,
    tx_hash: record.txHash,
    from: record.from,
    to: record.to,
    total_amount: amount(record.totalAmount),
    spent_by_me: amount(record.spentByMe),
    received_by_me: amount(record.receivedByMe),
    my_balance_change: amount(record.receivedByMe - record.spentByMe),
    block_height: record.blockHeight,
    timestamp: record.timestamp,
    fee_details: record.fee === null ? null : { type: 'Utxo', coin, amount: amount(record.fee) },
    coin,
    internal_id: record.txHash,
    transaction_type: 'StandardTransfer',
    memo: null,
    ...(confirmations === undefined ? {} : { confirmations }),
  };
}

/** `HistorySyncState`: `{"state"}`, with `additional_info` for `InProgress` and `Error`. */
export function renderSyncStatus(status: SyncStatus): WireSyncStatus {
  switch (status.state) {
    case 'InProgress':
      return { state: 'InProgress', additional_info: { transactions_left: status.transactionsLeft } };
    case 'Error':
      return { state: 'Error', additional_info: { code: status.code, message: status.message } };
    default:
      return { state: status.state };
  }
}
