import type { Static, TSchema } from '@sinclair/typebox';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import type { ActivationCommand } from '../../actors/ports/chainFamily.ts';
import type { ActivationVia } from '../../machines/activation.types.ts';
import type { TaskRecord } from '../../events/projections/taskStatus.ts';
import {
  EnableEthTaskUserActionParams,
  UserActionType,
  enableEthTaskCancelParams,
  enableEthTaskStatusParams,
  enableEthTaskUserActionParams,
} from '../../spec/enableEthTask.ts';
import { invalidRequest } from '../../spec/errors.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { taskMethod, type TaskKind } from '../../spec/taskKind.ts';
import type { CompiledSchema } from '../../spec/validate.ts';
import { defineMethod, RpcVersion, type MethodDef } from '../methods.ts';
import { RenderedJson } from '../json.ts';
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

/** What makes one kind's `init`: its params, its request form, and wire params → domain command. */
export interface TaskInitSpec<T extends TSchema> {
  readonly kind: TaskKind;
  readonly via: ActivationVia;
  readonly params: CompiledSchema<T>;
  toCommand(params: Static<T>): ActivationCommand;
  /** `client_id` of the params (the `/event-stream` id that hears the task). */
  clientId(params: Static<T>): number;
}

/**
 * The four `task::<kind>::*` methods (v2) of one activation kind, the same for every kind but
 * `init`'s params: `service` refuses an already activated coin before `init` reads the request
 * (the one admission rule, across every method); `user_action` answers only for tasks of this kind.
 */
export function taskMethods<T extends TSchema>(
  tasks: ActivationTasks,
  service: Pick<ActivationService, 'assertCanActivate'>,
  names: WireNames,
  init: TaskInitSpec<T>,
): Record<string, MethodDef<any>> {
  const { kind } = init;
  const prefix = taskMethod(kind);
  return {
    [`${prefix}::init`]: defineMethod({
      version: RpcVersion.V2,
      params: init.params,
      admit: admitActivation((request) => service.assertCanActivate(request), init.via),
      handle: async (params) => ({ task_id: await tasks.init({ kind, command: init.toCommand(params), clientId: init.clientId(params) }) }),
    }),
    ...taskStatusMethods(tasks, names, kind),
    ...userActionMethod(tasks, kind),
  };
}

/** `task::<kind>::user_action` (v2): the device PIN, for a task of this kind that awaits it. */
export function userActionMethod(tasks: ActivationTasks, kind: TaskKind): Record<string, MethodDef<any>> {
  return {
    [`${taskMethod(kind)}::user_action`]: defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskUserActionParams,
      async handle({ task_id, user_action }) {
        await tasks.enterPin(kind, task_id, pinOf(user_action));
        return 'success';
      },
    }),
  };
}

/**
 * `task::<kind>::status` and `::cancel` (v2), the same for every kind: they answer only for tasks
 * of this kind; `status` writes `names` (MM2.json `wire_names`).
 */
export function taskStatusMethods(tasks: ActivationTasks, names: WireNames, kind: TaskKind): Record<string, MethodDef<any>> {
  const renderedStatus = statusRenderer(names);
  const prefix = taskMethod(kind);
  return {
    [`${prefix}::status`]: defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskStatusParams,
      handle: ({ task_id, forget_if_finished }) => {
        const task = tasks.status(kind, task_id, forget_if_finished);
        return task instanceof Promise ? task.then(renderedStatus) : renderedStatus(task);
      },
    }),
    [`${prefix}::cancel`]: defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskCancelParams,
      async handle({ task_id }) {
        await tasks.cancel(kind, task_id);
        return 'success';
      },
    }),
  };
}
