import { enableEthTaskInitParams } from '../../spec/enableEthTask.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { TaskKind } from '../../spec/taskKind.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { toPlatformCommand } from './enableEthWithTokens.ts';
import { taskMethods } from './taskMethods.ts';

/**
 * The four `task::enable_eth::*` methods (v2, spec 4.1–4.4): `init` takes `enable_eth_with_tokens`'
 * params; `names` are those `status` writes (MM2.json `wire_names`).
 */
export function enableEthTaskMethods(tasks: ActivationTasks, service: Pick<ActivationService, 'assertCanActivate'>, names: WireNames = WireNames.Neutral) {
  return taskMethods(tasks, service, names, {
    kind: TaskKind.EnableEth,
    via: ActivationVia.EnableEthTask,
    params: enableEthTaskInitParams,
    toCommand: (params) => toPlatformCommand(params, ActivationVia.EnableEthTask),
    clientId: (params) => params.client_id,
  });
}
