import { accountBalanceParams, type AccountBalanceResult } from '../../spec/accountBalance.ts';
import { renderAccountBalance } from '../../spec/render/taskStatus.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { summarizeAccountPage } from '../../actors/accountBalance.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

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
        // The page is rendered as the task's account (spec 2.3), its sum named as the reference's page.
        const { total_balance, ...account } = renderAccountBalance(summarizeAccountPage(page));
        return {
          ...account,
          page_balance: total_balance!,
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
