import { legacyEnableParams } from '../../spec/legacyEnable.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { defineMethod, RpcVersion } from '../methods.ts';

/** Legacy `enable` (spec 4.7): errors in legacy form (`{"error": …}`, HTTP 500). Only its checks exist so far. */
export function legacyEnableMethod(service: ActivationService) {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: legacyEnableParams,
    handle({ coin, mm2 }) {
      return service.enableLegacy(coin, mm2);
    },
  });
}
