import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { CoinNode, Nullable, PrivKeyPolicy } from './enableEthWithTokens.ts';

/**
 * `params` of `enable_erc20` (docs/compatibility.md §18; the reference's `EnableTokenRequest` with
 * `Erc20TokenActivationRequest`). Besides `required_confirmations`, the fields are the ones the
 * reference's client sends from the token's config: each must say what the platform already does
 * (the method checks them against it). `protocol` (a custom token) and `activation_params.provider`
 * (an NFT activation) are the reference's other forms: declared so the method can refuse them by name.
 */
export const EnableErc20Params = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  protocol: Type.Optional(Type.Unknown()),
  activation_params: Type.Object({
    required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
    requires_notarization: Type.Optional(Type.Boolean()),
    priv_key_policy: Type.Optional(PrivKeyPolicy),
    nodes: Type.Optional(Type.Array(CoinNode)),
    swap_contract_address: Type.Optional(Nullable(Type.String())),
    fallback_swap_contract: Type.Optional(Nullable(Type.String())),
    provider: Type.Optional(Type.Unknown()),
  }),
});
export type EnableErc20Params = Static<typeof EnableErc20Params>;
export const enableErc20Params = compile(EnableErc20Params);

/** The reference's `Erc20InitResult`: the token's balance at the platform's address, keyed by that address. */
export const EnableErc20Result = Type.Object({
  balances: Type.Record(Type.String(), Type.Object({ spendable: Type.String(), unspendable: Type.String() })),
  platform_coin: Type.String(),
  token_contract_address: Type.String(),
  required_confirmations: Type.Integer({ minimum: 0 }),
});
export type EnableErc20Result = Static<typeof EnableErc20Result>;
export const enableErc20Result = compile(EnableErc20Result);
