import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { HdAddressInfo } from './activationResult.ts';
import { BalanceInfo } from './enableEthWithTokens.ts';

/** A BIP44 chain of an HD account (the reference's `Bip44Chain`). */
export const Bip44Chain = { External: 'External', Internal: 'Internal' } as const;
export type Bip44Chain = (typeof Bip44Chain)[keyof typeof Bip44Chain];

/** Addresses per page of `account_balance` when `limit` is absent (the reference's `common::ten`). */
export const DEFAULT_ACCOUNT_PAGE_LIMIT = 10;

/** The reference's `PagingOptionsEnum<u32>`: after an address id, or a 1-based page of `limit` addresses. */
export const PagingOptions = Type.Union([
  Type.Object({ FromId: Type.Integer({ minimum: 0 }) }),
  Type.Object({ PageNumber: Type.Integer({ minimum: 1 }) }),
]);
export type PagingOptions = Static<typeof PagingOptions>;

/**
 * v2 `account_balance` params (docs/compatibility.md §21). `chain` absent: `External` (the chain
 * every listing of this service holds); `paging_options` absent: page 1.
 */
export const AccountBalanceParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  account_index: Type.Integer({ minimum: 0, maximum: 0x7fffffff }),
  chain: Type.Union([Type.Literal(Bip44Chain.External), Type.Literal(Bip44Chain.Internal)], { default: Bip44Chain.External }),
  limit: Type.Integer({ minimum: 1, default: DEFAULT_ACCOUNT_PAGE_LIMIT }),
  paging_options: Type.Optional(PagingOptions),
});
export type AccountBalanceParams = Static<typeof AccountBalanceParams>;
export const accountBalanceParams = compile(AccountBalanceParams);

const BalanceMap = Type.Record(Type.String(), BalanceInfo);

/** v2 `account_balance` result: one page of the account's addresses (the reference's `HDAccountBalanceResponse`). */
export const AccountBalanceResult = Type.Object({
  account_index: Type.Integer({ minimum: 0 }),
  derivation_path: Type.String(),
  addresses: Type.Array(HdAddressInfo),
  page_balance: BalanceMap,
  limit: Type.Integer({ minimum: 1 }),
  skipped: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
  paging_options: PagingOptions,
});
export type AccountBalanceResult = Static<typeof AccountBalanceResult>;
export const accountBalanceResult = compile(AccountBalanceResult);

/**
 * `task::account_balance::init` params (the reference's `InitAccountBalanceRequest` in an
 * `RpcInitReq`): the coin, its HD account, and `client_id` (the `/event-stream?id=` that hears the task).
 */
export const AccountBalanceTaskInitParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  account_index: AccountBalanceParams.properties.account_index,
  client_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});
export const accountBalanceTaskInitParams = compile(AccountBalanceTaskInitParams);
