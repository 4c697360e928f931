import { legacyEnableParams, type LegacyEnableParams } from '../../spec/legacyEnable.ts';
import { CommandKind, type EnableActivationCommand } from '../../actors/ports/chainFamily.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { toAddressPathRequest, toGasStation, toSettingsRequest, toSwapContracts } from './enableEthWithTokens.ts';
import { renderLegacyActivation, toUtxoMergeSpec } from './legacyElectrum.ts';
import { admitActivation } from './rawActivationRequest.ts';

/** Wire params → domain command. */
export function toEnableCommand(params: LegacyEnableParams): EnableActivationCommand {
  return {
    kind: CommandKind.Enable,
    ticker: params.coin,
    via: ActivationVia.Enable,
    urls: params.urls,
    ...toSwapContracts(params),
    ...toUtxoMergeSpec(params.utxo_merge_params),
    ...(params.address_format === undefined ? {} : { addressFormat: params.address_format }),
    ...(params.path_to_address === undefined ? {} : { pathToAddress: toAddressPathRequest(params.path_to_address) }),
    ...toGasStation(params, ''),
    ...toSettingsRequest(params),
  };
}

/** Legacy `enable` (spec 4.7): the 4.6 response (plus `locked_by_swaps` for EVM); legacy errors. */
export function legacyEnableMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: legacyEnableParams,
    admit: admitActivation((request) => service.assertCanActivate(request), ActivationVia.Enable),
    async handle(params) {
      return renderLegacyActivation(await service.enableLegacy(toEnableCommand(params), params.mm2));
    },
  });
}
