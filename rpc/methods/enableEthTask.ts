import {
  enableEthTaskCancelParams,
  enableEthTaskInitParams,
  enableEthTaskStatusParams,
  enableEthTaskUserActionParams,
} from '../../spec/enableEthTask.ts';
import type { EnableEthTasks } from '../../actors/enableEthTasks.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { RenderedJson } from '../json.ts';
import type { TaskRecord } from '../../events/projections/taskStatus.ts';
import { toPlatformCommand } from './enableEthWithTokens.ts';
import { admitActivation } from './rawActivationRequest.ts';

/**
 * Each task record's status answer, rendered to JSON once: a task's record is replaced, never
 * changed, when the task moves, so polls between two of its events share one rendering.
 */
const renderedStatuses = new WeakMap<TaskRecord, RenderedJson>();

function renderedStatus(task: TaskRecord): RenderedJson {
  let rendered = renderedStatuses.get(task);
  if (rendered === undefined) renderedStatuses.set(task, (rendered = new RenderedJson(renderTaskStatus(task))));
  return rendered;
}

/** The four `task::enable_eth::*` methods (v2); `service` refuses an already activated coin before `init` reads the request. */
export function enableEthTaskMethods(tasks: EnableEthTasks, service: Pick<ActivationService, 'assertCanActivate'>) {
  return {
    'task::enable_eth::init': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskInitParams,
      admit: admitActivation((request) => service.assertCanActivate(request), ActivationVia.EnableEthTask),
      handle: async (params) => ({ task_id: await tasks.init(toPlatformCommand(params, ActivationVia.EnableEthTask), params.client_id) }),
    }),
    'task::enable_eth::status': defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskStatusParams,
      handle: ({ task_id, forget_if_finished }) => {
        const task = tasks.status(task_id, forget_if_finished);
        return task instanceof Promise ? task.then(renderedStatus) : renderedStatus(task);
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
