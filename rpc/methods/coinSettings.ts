import { coinStatusParams, setRequiredConfirmationsParams, setRequiresNotarizationParams } from '../../spec/coinStatus.ts';
import { renderCoinStatus } from '../../spec/render/coinStatus.ts';
import type { CoinSettingsService } from '../../actors/coinSettingsService.ts';
import { defineMethod, RpcVersion, type MethodTable } from '../methods.ts';

/**
 * `coin_status` (v2) and the legacy setters (issue 13; docs/compatibility.md §13). The setters
 * answer in the reference's form; `coin_status` has no counterpart in the reference.
 */
export function coinSettingsMethods(settings: CoinSettingsService): MethodTable {
  return {
    coin_status: defineMethod({
      version: RpcVersion.V2,
      params: coinStatusParams,
      handle: ({ ticker }) => renderCoinStatus(settings.status(ticker)),
    }),
    set_required_confirmations: defineMethod({
      version: RpcVersion.Legacy,
      params: setRequiredConfirmationsParams,
      async handle({ coin, confirmations }) {
        return { result: { coin, confirmations: await settings.setRequiredConfirmations(coin, confirmations) } };
      },
    }),
    set_requires_notarization: defineMethod({
      version: RpcVersion.Legacy,
      params: setRequiresNotarizationParams,
      async handle({ coin, requires_notarization }) {
        return { result: { coin, requires_notarization: await settings.setRequiresNotarization(coin, requires_notarization) } };
      },
    }),
  };
}
