import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';

/** `get_enabled_coins`: no parameters in either form. */
export const GetEnabledCoinsParams = Type.Object({});
export const getEnabledCoinsParams = compile(GetEnabledCoinsParams);

/** Legacy `get_enabled_coins` response (docs/compatibility.md §10). */
export const GetEnabledCoinsLegacyResponse = Type.Object({
  result: Type.Array(Type.Object({ ticker: Type.String(), address: Type.String() })),
});
/** v2 `get_enabled_coins` result (docs/compatibility.md §10). */
export const GetEnabledCoinsV2Result = Type.Object({ coins: Type.Array(Type.Object({ ticker: Type.String() })) });

/** Legacy `disable_coin` request (flat). */
export const DisableCoinParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  force_disable: Type.Boolean({ default: false }),
});
export type DisableCoinParams = Static<typeof DisableCoinParams>;
export const disableCoinParams = compile(DisableCoinParams);

/** Legacy `disable_coin` response. */
export const DisableCoinResponse = Type.Object({
  result: Type.Object({
    coin: Type.String(),
    cancelled_orders: Type.Array(Type.String()),
    passivized: Type.Boolean(),
  }),
});
export const disableCoinResponse = compile(DisableCoinResponse);

/** Legacy `my_balance` request (flat). */
export const MyBalanceParams = Type.Object({ coin: Type.String({ minLength: 1 }) });
export type MyBalanceParams = Static<typeof MyBalanceParams>;
export const myBalanceParams = compile(MyBalanceParams);

/** Legacy `my_balance` response. */
export const MyBalanceResponse = Type.Object({
  coin: Type.String(),
  balance: Type.String(),
  unspendable_balance: Type.String(),
  address: Type.String(),
});
export const myBalanceResponse = compile(MyBalanceResponse);
