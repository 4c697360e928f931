import type { EnableErc20Result } from '../enableErc20.ts';
import type { ActivatedTokenInfo } from '../events.ts';

/** Confirmations of a token kept without settings (spec 8's default). */
const DEFAULT_CONFIRMATIONS = 3;

/**
 * The result of `enable_erc20` (docs/compatibility.md §18): the token's balance keyed by its
 * platform's address (the one address a token is read at), the platform, the token's contract as
 * its family shows it (EIP-55 `0x…`, TRON base58 `T…`) and its confirmations.
 */
export function renderEnableErc20Result(token: ActivatedTokenInfo, platform: { readonly ticker: string; readonly address: string }): EnableErc20Result {
  return {
    balances: { [platform.address]: token.balance ?? { spendable: '0', unspendable: '0' } },
    platform_coin: platform.ticker,
    token_contract_address: token.contractAddress,
    required_confirmations: token.settings?.requiredConfirmations ?? DEFAULT_CONFIRMATIONS,
  };
}
