import { formatAmount } from '../../spec/amount.ts';
import { legacyElectrumParams, type LegacyActivationResponse, type LegacyElectrumParams, type UtxoMergeParams, UTXO_MERGE_DEFAULTS } from '../../spec/legacyElectrum.ts';
import { CommandKind, type ElectrumActivationCommand, type UtxoMergeSpec } from '../../actors/ports/chainFamily.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia, type ActivatedCoin } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { toAddressPathRequest, toSettingsRequest, toSwapContracts } from './enableEthWithTokens.ts';
import { admitActivation } from './rawActivationRequest.ts';

/** `utxo_merge_params` in domain form (`null` is the same as left out, as the reference reads it). */
export function toUtxoMergeSpec(params: UtxoMergeParams | null | undefined): { utxoMerge?: UtxoMergeSpec } {
  if (params == null) return {};
  const { check_every = UTXO_MERGE_DEFAULTS.check_every, max_merge_at_once = UTXO_MERGE_DEFAULTS.max_merge_at_once } = params;
  return { utxoMerge: { mergeAt: params.merge_at, checkEverySeconds: check_every, maxMergeAtOnce: max_merge_at_once } };
}

/** Wire params → domain command. */
export function toElectrumCommand(params: LegacyElectrumParams): ElectrumActivationCommand {
  return {
    kind: CommandKind.Electrum,
    ticker: params.coin,
    via: ActivationVia.Electrum,
    servers: params.servers?.map((s) => ({ url: s.url, protocol: s.protocol, ...(s.disable_cert_verification ? { disableCertVerification: true } : {}) })),
    ...(params.min_connected === undefined ? {} : { minConnected: params.min_connected }),
    ...(params.max_connected === undefined ? {} : { maxConnected: params.max_connected }),
    ...toSettingsRequest(params),
    ...(params.address_format === undefined ? {} : { addressFormat: params.address_format }),
    ...toSwapContracts(params),
    ...toUtxoMergeSpec(params.utxo_merge_params),
    ...(params.path_to_address === undefined ? {} : { pathToAddress: toAddressPathRequest(params.path_to_address) }),
  };
}

/** The legacy success body (spec 4.6, docs/compatibility.md §9), keys in the reference's order. */
export function renderLegacyActivation(coin: ActivatedCoin): LegacyActivationResponse {
  const balance = coin.balance ?? { spendable: 0n, unspendable: 0n };
  const confirmations = coin.confirmations ?? { required: 3, requiresNotarization: false };
  return {
    result: 'success',
    address: coin.address,
    balance: formatAmount(balance.spendable, coin.decimals),
    unspendable_balance: formatAmount(balance.unspendable, coin.decimals),
    coin: coin.ticker,
    required_confirmations: confirmations.required,
    requires_notarization: confirmations.requiresNotarization,
    ...(confirmations.mature === undefined ? {} : { mature_confirmations: confirmations.mature }),
    ...(coin.lockedBySwaps === undefined ? {} : { locked_by_swaps: formatAmount(coin.lockedBySwaps, coin.decimals) }),
  };
}

/** Legacy `electrum` (spec 4.6): errors in legacy form (`{"error": …}`, HTTP 500). */
export function legacyElectrumMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: legacyElectrumParams,
    admit: admitActivation((request) => service.assertCanActivate(request), ActivationVia.Electrum),
    async handle(params) {
      return renderLegacyActivation(await service.enableElectrum(toElectrumCommand(params), params.mm2));
    },
  });
}
