import { ActivationError, type ErrorType } from '../../spec/errors.ts';
import {
  enableEthTaskCancelParams,
  enableEthTaskInitParams,
  enableEthTaskStatusParams,
  enableEthTaskUserActionParams,
} from '../../spec/enableEthTask.ts';
import type { EnableEthTasks } from '../../actors/enableEthTasks.ts';
import type { TaskRecord } from '../../events/projections/taskStatus.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { errorOrigin, renderV2Error } from '../../spec/render/envelope.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { renderActivationResult } from '../../spec/render/activationResult.ts';
import { toPlatformCommand } from './enableEthWithTokens.ts';

/** A task's status as the wire shows it (spec 4.2, notes §8). */
export function renderTaskStatus(task: TaskRecord): unknown {
  const view = task.view;
  switch (view.state) {
    case 'InProgress':
    case 'UserActionRequired':
      return { status: view.state, details: view.details };
    case 'Ok':
      return { status: 'Ok', details: renderActivationResult(view.result, task.getBalances) };
    case 'Error': {
      const error = new ActivationError(view.error.errorType as ErrorType, view.error.message, view.error.data);
      const { mmrpc: _m, id: _i, ...details } = renderV2Error(error, null, errorOrigin('task', view.error.errorType));
      return { status: 'Error', details };
    }
    default:
      throw new Error(`task ${task.taskId} is not visible`); // unreachable: filtered by the manager
  }
}

/** The four `task::enable_eth::*` methods (v2). */
export function enableEthTaskMethods(tasks: EnableEthTasks) {
  return {
    'task::enable_eth::init': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskInitParams,
      handle: async (params) => ({ task_id: await tasks.init(toPlatformCommand(params, ActivationVia.EnableEthTask)) }),
    }),
    'task::enable_eth::status': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskStatusParams,
      handle: ({ task_id, forget_if_finished }) => {
        const task = tasks.status(task_id, forget_if_finished);
        return task instanceof Promise ? task.then(renderTaskStatus) : renderTaskStatus(task);
      },
    }),
    'task::enable_eth::user_action': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskUserActionParams,
      async handle({ task_id, user_action }) {
        await tasks.enterPin(task_id, user_action.pin);
        return 'success';
      },
    }),
    'task::enable_eth::cancel': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskCancelParams,
      async handle({ task_id }) {
        await tasks.cancel(task_id);
        return 'success';
      },
    }),
  };
}
