/**
 * `stream::balance::enable` and `stream::disable` (docs/compatibility.md §20): the reference's
 * `EnableStreamingRequest<EnableBalanceStreamingRequest>`, `DisableStreamingRequest` and their answers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';

/** `stream::balance::enable` params: `client_id` (default 0), the coin, and the reference's optional `config`. */
export const EnableBalanceStreamingParams = Type.Object({
  client_id: Type.Integer({ minimum: 0, default: 0 }),
  coin: Type.String({ minLength: 1 }),
  /** The reference's EVM `{"stream_interval_seconds"}`: refused here (the interval is the platform's `balance_poll_s`). */
  config: Type.Optional(Type.Unknown()),
});
export const enableBalanceStreamingParams = compile(EnableBalanceStreamingParams);

/** `stream::disable` params: both required, as the reference's `DisableStreamingRequest`. */
export const DisableStreamingParams = Type.Object({
  client_id: Type.Integer({ minimum: 0 }),
  streamer_id: Type.String({ minLength: 1 }),
});
export const disableStreamingParams = compile(DisableStreamingParams);

/** `stream::disable` result: the reference's `DisableStreamingResponse`. */
export const DisableStreamingResult = Type.Object({ result: Type.Literal('Success') });
export type DisableStreamingResult = Static<typeof DisableStreamingResult>;

/** The reference's streamer id of a coin's balance: `BALANCE:<coin>`. */
export const balanceStreamerId = (coin: string): string => `BALANCE:${coin}`;

/**
 * The `message` of a balance frame: the reference's list of `{ticker, address, balance}` updates
 * (`balance` with `spendable` and `unspendable`, decimal strings).
 */
export interface BalanceUpdate {
  readonly ticker: string;
  readonly address: string;
  readonly balance: { readonly spendable: string; readonly unspendable: string };
}
