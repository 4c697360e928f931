/**
 * The withdrawal events (issue 25, docs/events.md "Withdrawals"), re-exported by spec/events.ts.
 * Both are on the coin's stream (`coin.<TICKER>`), so `/events?coin=` and NATS subscribers of the
 * coin hear them. Neither carries a key, a PIN or a passphrase; `WithdrawalSigned` carries no
 * transaction hex (its hash names it): only a `task::withdraw` result keeps the hex (docs/events.md).
 */
import { Type, type Static } from '@sinclair/typebox';
import { event } from './eventParts.ts';

/**
 * Fee details as the wire shows them (spec 2.4 WithdrawFee, the reference's `TxFeeDetails`, tag
 * `type`): rendered once by spec/render/withdrawResult.ts, kept in that form.
 */
export const FeeDetailsRecord = Type.Intersect([
  Type.Object({ type: Type.String(), coin: Type.String() }),
  Type.Record(Type.String(), Type.Unknown()),
]);

/** A signed withdrawal, amounts as exact decimal strings (the `task::withdraw` `Ok` result's content). */
export const WithdrawalSummary = Type.Object({
  coin: Type.String(),
  /** Hex without `0x`; the signed transaction, which only the task result keeps. */
  txHex: Type.String(),
  txHash: Type.String(),
  from: Type.Array(Type.String()),
  to: Type.Array(Type.String()),
  totalAmount: Type.String(),
  spentByMe: Type.String(),
  receivedByMe: Type.String(),
  myBalanceChange: Type.String(),
  feeDetails: FeeDetailsRecord,
  timestamp: Type.Integer({ minimum: 0 }),
  memo: Type.Optional(Type.String()),
});
export type WithdrawalSummary = Static<typeof WithdrawalSummary>;

/** A withdrawal was built and signed (never broadcast by `withdraw`). */
export const WithdrawalSigned = event(
  'WithdrawalSigned',
  Type.Object({
    ticker: Type.String(),
    /** The `task::withdraw` that signed it; absent for `withdraw`. */
    taskId: Type.Optional(Type.Integer({ minimum: 0 })),
    from: Type.Array(Type.String()),
    to: Type.Array(Type.String()),
    /** Decimal string in the coin's units. */
    amount: Type.String(),
    feeDetails: FeeDetailsRecord,
    txHash: Type.String(),
    /** EVM: the nonce the transaction uses. */
    nonce: Type.Optional(Type.String()),
  }),
);

/** `send_raw_transaction` handed a transaction to a node, which took it. */
export const TransactionBroadcast = event(
  'TransactionBroadcast',
  Type.Object({
    ticker: Type.String(),
    txHash: Type.String(),
    /** The node that took it, by origin only (a URL may embed an API key). */
    node: Type.String(),
    /** EVM: the sender and nonce (the nonce book's entry). */
    from: Type.Optional(Type.String()),
    nonce: Type.Optional(Type.String()),
  }),
);
