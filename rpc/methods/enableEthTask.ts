import type { Static } from '@sinclair/typebox';
import {
  EnableEthTaskUserActionParams,
  UserActionType,
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
import { invalidRequest } from '../../spec/errors.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { RenderedJson } from '../json.ts';
import type { TaskRecord } from '../../events/projections/taskStatus.ts';
import { toPlatformCommand } from './enableEthWithTokens.ts';
import { admitActivation } from './rawActivationRequest.ts';

/**
 * Each task record's status answer, rendered to JSON once per table of names: a task's record is
 * replaced, never changed, when the task moves, so polls between two of its events share one rendering.
 */
function statusRenderer(names: WireNames): (task: TaskRecord) => RenderedJson {
  const rendered = new WeakMap<TaskRecord, RenderedJson>();
  return (task) => {
    let json = rendered.get(task);
    if (json === undefined) rendered.set(task, (json = new RenderedJson(renderTaskStatus(task, names))));
    return json;
  };
}

/** The PIN of a `user_action`, or a refusal naming what is wrong (the PIN and passphrase are never echoed). */
function pinOf(action: Static<typeof EnableEthTaskUserActionParams>['user_action']): string {
  if (action.action_type === UserActionType.TrezorPassphrase) {
    throw invalidRequest(
      'params.user_action.action_type: TrezorPassphrase answers a device\'s passphrase request, and this service\'s hardware flow has no passphrase step (it never reports EnterTrezorPassphrase); only the PIN (TrezorPin or HardwarePin) is awaited',
    );
  }
  if (action.pin === undefined) throw invalidRequest(`params.user_action.pin: required with ${action.action_type}`);
  return action.pin;
}

/**
 * The four `task::enable_eth::*` methods (v2); `service` refuses an already activated coin before
 * `init` reads the request; `names` are those `status` writes (MM2.json `wire_names`).
 */
export function enableEthTaskMethods(tasks: EnableEthTasks, service: Pick<ActivationService, 'assertCanActivate'>, names: WireNames = WireNames.Neutral) {
  const renderedStatus = statusRenderer(names);
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
        await tasks.enterPin(task_id, pinOf(user_action));
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
