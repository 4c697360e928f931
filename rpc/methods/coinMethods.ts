import { formatAmount } from '../../spec/amount.ts';
import { ActivationError, ErrorType, isActivationError } from '../../spec/errors.ts';
import { disableCoinParams, getEnabledCoinsParams, myBalanceParams } from '../../spec/coinMethods.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

/** v2 `get_enabled_coins`: `{"coins":[{"ticker"}]}`. */
export function getEnabledCoinsV2Method(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.V2,
    params: getEnabledCoinsParams,
    handle: async () => ({ coins: service.enabledCoins().map((c) => ({ ticker: c.ticker })) }),
  });
}

/** Legacy `get_enabled_coins`: `{"result":[{"ticker","address"}]}`. */
export function getEnabledCoinsLegacyMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: getEnabledCoinsParams,
    handle: async () => ({ result: service.enabledCoins().map((c) => ({ ticker: c.ticker, address: c.address })) }),
  });
}

/** Legacy `disable_coin` (docs/compatibility.md §10); an unknown coin answers with the reference's extra fields. */
export function disableCoinMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: disableCoinParams,
    async handle({ coin, force_disable }) {
      try {
        const outcome = await service.disableCoin(coin, force_disable);
        return { result: { coin: outcome.coin, cancelled_orders: [], passivized: outcome.passivized } };
      } catch (error) {
        if (isActivationError(error) && error.errorType === ErrorType.NoSuchCoin) {
          throw new ActivationError(ErrorType.NoSuchCoin, error.message, coin, {
            legacyFields: { orders: { matching: [], cancelled: [] }, active_swaps: [] },
          });
        }
        throw error;
      }
    },
  });
}

/** Legacy `my_balance`: a live read of an enabled coin or token. */
export function myBalanceMethod(service: ActivationService, timeoutMs = 30_000) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: myBalanceParams,
    async handle({ coin }) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('my_balance timed out')), timeoutMs);
      try {
        const { address, decimals, balance } = await service.balance(coin, controller.signal);
        return {
          coin,
          balance: formatAmount(balance.spendable, decimals),
          unspendable_balance: formatAmount(balance.unspendable, decimals),
          address,
        };
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
