import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { BalanceInfo } from './enableEthWithTokens.ts';
import { Bip44Chain } from './accountBalance.ts';

/**
 * The wire shapes of HD address management (docs/compatibility.md §24): `get_new_address`,
 * `task::get_new_address::*` and `task::scan_for_new_addresses::*`, as the reference's
 * `GetNewAddressParams`, `ScanAddressesParams`, `NewAddressInfo` and `ScanAddressesInfo` (spec 2.3).
 */

/** The highest BIP44 address id (non-hardened): an account chain holds at most 2^31 addresses. */
export const MAX_ADDRESSES_NUMBER = 0x80000000;

const AccountIndex = Type.Integer({ minimum: 0, maximum: 0x7fffffff });
const ChainParam = Type.Union([Type.Literal(Bip44Chain.External), Type.Literal(Bip44Chain.Internal)], { default: Bip44Chain.External });
/** Absent: the gap limit the coin was activated with (spec 4.1 `gap_limit`, 20 by default). */
const GapLimit = Type.Optional(Type.Integer({ minimum: 0, maximum: 0x7fffffff }));
const ClientId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 });

/** `get_new_address` params (v2): the account, its chain (`External` when absent) and the gap limit. */
export const GetNewAddressParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  account_id: AccountIndex,
  chain: ChainParam,
  gap_limit: GapLimit,
});
export type GetNewAddressParams = Static<typeof GetNewAddressParams>;
export const getNewAddressParams = compile(GetNewAddressParams);

/** `task::get_new_address::init` params: those of `get_new_address` and `client_id`. */
export const GetNewAddressTaskInitParams = Type.Object({ ...GetNewAddressParams.properties, client_id: ClientId });
export const getNewAddressTaskInitParams = compile(GetNewAddressTaskInitParams);

/** `task::scan_for_new_addresses::init` params: the account and the gap limit of the scan. */
export const ScanForNewAddressesInitParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  account_index: AccountIndex,
  gap_limit: GapLimit,
  client_id: ClientId,
});
export const scanForNewAddressesInitParams = compile(ScanForNewAddressesInitParams);

/** spec 2.3 NewAddressInfo; `balance` by ticker (the reference's `GetNewAddressResponseEnum::Map`). */
export const NewAddressInfo = Type.Object({
  address: Type.String(),
  derivation_path: Type.String(),
  chain: Type.Union([Type.Literal(Bip44Chain.External), Type.Literal(Bip44Chain.Internal)]),
  balance: Type.Record(Type.String(), BalanceInfo),
});
export type NewAddressInfo = Static<typeof NewAddressInfo>;

/** `get_new_address` result and `task::get_new_address::status` `Ok` details. */
export const GetNewAddressResult = Type.Object({ new_address: NewAddressInfo });
export type GetNewAddressResult = Static<typeof GetNewAddressResult>;
export const getNewAddressResult = compile(GetNewAddressResult);

/** spec 2.3 ScanAddressesInfo: `task::scan_for_new_addresses::status` `Ok` details. */
export const ScanAddressesInfo = Type.Object({
  account_index: Type.Integer({ minimum: 0 }),
  derivation_path: Type.String(),
  new_addresses: Type.Array(NewAddressInfo),
});
export type ScanAddressesInfo = Static<typeof ScanAddressesInfo>;
export const scanAddressesInfo = compile(ScanAddressesInfo);
