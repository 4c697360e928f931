import { formatAmount } from '../../spec/amount.ts';
import { accountBalanceParams, type AccountBalanceResult } from '../../spec/accountBalance.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import type { AccountPage } from '../../actors/accountBalance.ts';
import type { Balance } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

type BalanceMap = AccountBalanceResult['page_balance'];

/** Decimal-string balances keyed by ticker. */
function balanceMap(balances: ReadonlyMap<string, Balance>, decimals: ReadonlyMap<string, number>): BalanceMap {
  return Object.fromEntries(
    [...balances].map(([ticker, b]) => {
      const d = decimals.get(ticker) ?? 0;
      return [ticker, { spendable: formatAmount(b.spendable, d), unspendable: formatAmount(b.unspendable, d) }];
    }),
  );
}

/** The page's per-ticker sum over its addresses (the reference's `page_balance`). */
export function pageBalance(page: AccountPage): BalanceMap {
  const sums = new Map<string, Balance>([...page.decimals.keys()].map((t) => [t, { spendable: 0n, unspendable: 0n }]));
  for (const a of page.addresses) {
    for (const [ticker, b] of a.balances) {
      const sum = sums.get(ticker)!;
      sums.set(ticker, { spendable: sum.spendable + b.spendable, unspendable: sum.unspendable + b.unspendable });
    }
  }
  return balanceMap(sums, page.decimals);
}

/** The page's addresses in the wire shape of spec 2.3 AccountAddressInfo. */
export function pageAddresses(page: AccountPage): AccountBalanceResult['addresses'] {
  return page.addresses.map((a) => ({ address: a.address, derivation_path: a.derivationPath, chain: a.chain, balance: balanceMap(a.balances, page.decimals) }));
}

/**
 * v2 `account_balance` (docs/compatibility.md §21): one page of an HD account's listed addresses,
 * from the balance watchers when fresh, else one read through the coin's family.
 */
export function accountBalanceMethod(service: ActivationService, timeoutMs = 30_000) {
  return defineMethod({
    version: RpcVersion.V2,
    params: accountBalanceParams,
    async handle({ coin, account_index, chain, limit, paging_options }): Promise<AccountBalanceResult> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('account_balance timed out')), timeoutMs);
      try {
        const paging = paging_options ?? { PageNumber: 1 };
        const page = await service.accountBalance(coin, { accountIndex: account_index, chain, limit, paging }, controller.signal);
        return {
          account_index: page.accountIndex,
          derivation_path: page.accountPath,
          addresses: pageAddresses(page),
          page_balance: pageBalance(page),
          limit,
          skipped: page.skipped,
          total: page.total,
          total_pages: Math.ceil(page.total / limit),
          paging_options: paging,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
