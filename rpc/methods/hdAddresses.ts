import type { ActivationService } from '../../actors/activationService.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import { getNewAddressParams, getNewAddressTaskInitParams, scanForNewAddressesInitParams, type GetNewAddressResult } from '../../spec/hdAddresses.ts';
import { renderNewAddress } from '../../spec/render/hdAddresses.ts';
import { TaskKind, taskMethod } from '../../spec/taskKind.ts';
import type { WireNames } from '../../spec/wireNames.ts';
import { defineMethod, RpcVersion, type MethodDef } from '../methods.ts';
import { taskStatusMethods, taskUserActionMethod } from './taskMethods.ts';

/** `gap_limit` of the params, when given. */
const gapLimitOf = (gap_limit: number | undefined) => (gap_limit === undefined ? {} : { gapLimit: gap_limit });

/**
 * v2 `get_new_address` (docs/compatibility.md §24): the next address of an enabled coin's HD
 * account chain, refused by the reference's gap-limit rule; recorded and watched once answered.
 */
export function getNewAddressMethod(service: ActivationService, timeoutMs = 30_000) {
  return defineMethod({
    version: RpcVersion.V2,
    params: getNewAddressParams,
    async handle({ coin, account_id, chain, gap_limit }): Promise<GetNewAddressResult> {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('get_new_address timed out')), timeoutMs);
      try {
        return renderNewAddress(await service.newAddress(coin, { accountIndex: account_id, chain, ...gapLimitOf(gap_limit) }, controller.signal));
      } finally {
        clearTimeout(timer);
      }
    },
  });
}

/**
 * `task::get_new_address::init|status|user_action|cancel` and `task::scan_for_new_addresses::
 * init|status|cancel` (v2, docs/compatibility.md §24): on the task machine, as every kind. The
 * scan has no `user_action`, as the reference's.
 */
export function hdAddressTaskMethods(tasks: ActivationTasks, names: WireNames): Record<string, MethodDef<any>> {
  return {
    [`${taskMethod(TaskKind.GetNewAddress)}::init`]: defineMethod({
      version: RpcVersion.V2,
      params: getNewAddressTaskInitParams,
      handle: async ({ coin, account_id, chain, gap_limit, client_id }) => ({
        task_id: await tasks.initAccountTask({ kind: TaskKind.GetNewAddress, ticker: coin, accountIndex: account_id, chain, ...gapLimitOf(gap_limit), clientId: client_id }),
      }),
    }),
    ...taskStatusMethods(tasks, names, TaskKind.GetNewAddress),
    ...taskUserActionMethod(tasks, TaskKind.GetNewAddress),
    [`${taskMethod(TaskKind.ScanForNewAddresses)}::init`]: defineMethod({
      version: RpcVersion.V2,
      params: scanForNewAddressesInitParams,
      handle: async ({ coin, account_index, gap_limit, client_id }) => ({
        task_id: await tasks.initAccountTask({ kind: TaskKind.ScanForNewAddresses, ticker: coin, accountIndex: account_index, ...gapLimitOf(gap_limit), clientId: client_id }),
      }),
    }),
    ...taskStatusMethods(tasks, names, TaskKind.ScanForNewAddresses),
  };
}
