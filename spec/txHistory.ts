/**
 * `my_tx_history` in both forms (spec 4.1 `tx_history`, spec 2.3 history filter; docs/compatibility.md
 * §22): the reference's `MyTxHistoryRequest` (legacy, flat), `MyTxHistoryRequestV2` (v2 `params`),
 * their answers, the `TransactionDetails` entry and `HistorySyncState`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { Bip44Chain } from './accountBalance.ts';

/** Entries per page when `limit` is absent (the reference's `common::ten`). */
export const DEFAULT_HISTORY_LIMIT = 10;

const ChainName = Type.Union([Type.Literal(Bip44Chain.External), Type.Literal(Bip44Chain.Internal)]);
const AccountId = Type.Integer({ minimum: 0, maximum: 0x7fffffff });

/** The spec's history filter as the reference's `MyTxHistoryTarget` (tag `type`, snake_case). */
export const HistoryTarget = Type.Union([
  Type.Object({ type: Type.Literal('iguana') }),
  Type.Object({ type: Type.Literal('account_id'), account_id: AccountId }),
  Type.Object({ type: Type.Literal('address_id'), account_id: AccountId, chain: ChainName, address_id: AccountId }),
]);
export type HistoryTarget = Static<typeof HistoryTarget>;

/**
 * Legacy `my_tx_history` (flat). `target`, which the reference ignores in this form, filters as in
 * v2; the reference's client sends `{"type":"account_id","id":0}` in legacy calls, read as account 0
 * (docs/compatibility.md §22).
 */
export const MyTxHistoryLegacyParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  from_id: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9a-fA-F]*$' }), Type.Null()])),
  max: Type.Boolean({ default: false }),
  limit: Type.Integer({ minimum: 0, default: DEFAULT_HISTORY_LIMIT }),
  page_number: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  target: Type.Optional(Type.Union([HistoryTarget, Type.Object({ type: Type.Literal('account_id'), id: AccountId })])),
});
export type MyTxHistoryLegacyParams = Static<typeof MyTxHistoryLegacyParams>;
export const myTxHistoryLegacyParams = compile(MyTxHistoryLegacyParams);

/** `PagingOptionsEnum<BytesJson>`: PascalCase keys, a 1-based page or after an `internal_id`. */
export const HistoryPaging = Type.Union([
  Type.Object({ PageNumber: Type.Integer({ minimum: 1 }) }),
  Type.Object({ FromId: Type.String({ pattern: '^[0-9a-fA-F]*$' }) }),
]);
export type HistoryPaging = Static<typeof HistoryPaging>;

/** v2 `my_tx_history` params; `paging_options` default page 1, `target` default iguana (as the reference). */
export const MyTxHistoryV2Params = Type.Object({
  coin: Type.String({ minLength: 1 }),
  limit: Type.Integer({ minimum: 0, default: DEFAULT_HISTORY_LIMIT }),
  paging_options: Type.Optional(HistoryPaging),
  target: Type.Optional(HistoryTarget),
});
export type MyTxHistoryV2Params = Static<typeof MyTxHistoryV2Params>;
export const myTxHistoryV2Params = compile(MyTxHistoryV2Params);

/** `stream::tx_history::enable` params (the reference's `EnableStreamingRequest<EnableTxHistoryStreamingRequest>`). */
export const EnableTxHistoryStreamingParams = Type.Object({
  client_id: Type.Integer({ minimum: 0, default: 0 }),
  coin: Type.String({ minLength: 1 }),
});
export const enableTxHistoryStreamingParams = compile(EnableTxHistoryStreamingParams);

/** The reference's streamer id of a coin's history: `TX_HISTORY:<coin>`. */
export const txHistoryStreamerId = (coin: string): string => `TX_HISTORY:${coin}`;

/** `HistorySyncState` on the wire: `{"state"}` plus `additional_info` for two states. */
export type WireSyncStatus =
  | { readonly state: 'NotEnabled' | 'NotStarted' | 'Finished' }
  | { readonly state: 'InProgress'; readonly additional_info: { readonly transactions_left: number } }
  | { readonly state: 'Error'; readonly additional_info: { readonly code: number; readonly message: string } };

/** `fee_details` of a UTXO entry (the reference's `UtxoFeeDetails`, tag `type`). */
export interface WireUtxoFee {
  readonly type: 'Utxo';
  readonly coin: string;
  readonly amount: string;
}

/**
 * One `TransactionDetails` entry with `confirmations`, keys in the reference's order
 * (`lp_coins.rs` `TransactionDetails`; `kmd_rewards` omitted when absent).
 */
export interface WireTransactionDetails {
  readonly tx_hex: string;
  readonly tx_hash: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly total_amount: string;
  readonly spent_by_me: string;
  readonly received_by_me: string;
  readonly my_balance_change: string;
  readonly block_height: number;
  readonly timestamp: number;
  readonly fee_details: WireUtxoFee | null;
  readonly coin: string;
  readonly internal_id: string;
  readonly transaction_type: 'StandardTransfer';
  readonly memo: string | null;
  /** Added by `my_tx_history`; absent in the stream's frames (as the reference). */
  readonly confirmations?: number;
}
