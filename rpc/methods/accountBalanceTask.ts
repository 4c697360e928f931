import { accountBalanceTaskInitParams } from '../../spec/accountBalance.ts';
import { TaskKind, taskMethod } from '../../spec/taskKind.ts';
import type { WireNames } from '../../spec/wireNames.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import { defineMethod, RpcVersion, type MethodDef } from '../methods.ts';
import { taskStatusMethods } from './taskMethods.ts';

/**
 * `task::account_balance::init|status|cancel` (v2, docs/compatibility.md §21): a read of an
 * enabled coin's HD account on the task machine; `Ok` details are spec 2.3 WalletAccountInfo.
 * No `user_action`: the reference's task awaits nothing.
 */
export function accountBalanceTaskMethods(tasks: ActivationTasks, names: WireNames): Record<string, MethodDef<any>> {
  return {
    [`${taskMethod(TaskKind.AccountBalance)}::init`]: defineMethod({
      version: RpcVersion.V2,
      params: accountBalanceTaskInitParams,
      handle: async ({ coin, account_index, client_id }) => ({
        task_id: await tasks.initAccountTask({ kind: TaskKind.AccountBalance, ticker: coin, accountIndex: account_index, clientId: client_id }),
      }),
    }),
    ...taskStatusMethods(tasks, names, TaskKind.AccountBalance),
  };
}
