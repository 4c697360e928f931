/**
 * The node-level methods the reference's client sends at login (docs/compatibility.md §19):
 * legacy `version`, v2 `get_wallet_names` and `stream::shutdown_signal::enable`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';

/** Legacy `version` and v2 `get_wallet_names` take nothing (the reference reads no field of them). */
export const NoParams = Type.Object({});
export const noParams = compile(NoParams);

/** Legacy `version` answer: the reference's `MmVersionResponse`. */
export const VersionResponse = Type.Object({ result: Type.String(), datetime: Type.String() });
export type VersionResponse = Static<typeof VersionResponse>;

/** v2 `get_wallet_names` result: the reference's `GetWalletNamesResponse`. */
export const GetWalletNamesResult = Type.Object({
  wallet_names: Type.Array(Type.String()),
  activated_wallet: Type.Union([Type.String(), Type.Null()]),
});
export type GetWalletNamesResult = Static<typeof GetWalletNamesResult>;
export const getWalletNamesResult = compile(GetWalletNamesResult);

/** `stream::<streamer>::enable` params: the reference's `EnableStreamingRequest` (`client_id` default 0). */
export const EnableStreamingParams = Type.Object({ client_id: Type.Integer({ minimum: 0, default: 0 }) });
export const enableStreamingParams = compile(EnableStreamingParams);

/** `stream::<streamer>::enable` result: the reference's `EnableStreamingResponse`. */
export const EnableStreamingResult = Type.Object({ streamer_id: Type.String() });
