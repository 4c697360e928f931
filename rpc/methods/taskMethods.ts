import type { Static, TSchema } from '@sinclair/typebox';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import type { ActivationCommand } from '../../actors/ports/chainFamily.ts';
import type { ActivationVia } from '../../machines/activation.types.ts';
import type { TaskRecord } from '../../events/projections/taskStatus.ts';
import { enableEthTaskCancelParams, enableEthTaskStatusParams, enableEthTaskUserActionParams } from '../../spec/enableEthTask.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { taskMethod, type TaskKind } from '../../spec/taskKind.ts';
import type { CompiledSchema } from '../../spec/validate.ts';
import { defineMethod, RpcVersion, type MethodDef } from '../methods.ts';
import { RenderedJson } from '../json.ts';
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
 * The four `task::<kind>::*` methods (v2) of one kind, the same for every kind but `init`'s params:
 * `service` refuses an already activated coin before `init` reads the request (the one admission
 * rule, across every method); `status`, `user_action` and `cancel` answer only for tasks of this kind.
 */
export function taskMethods<T extends TSchema>(
  tasks: ActivationTasks,
  service: Pick<ActivationService, 'assertCanActivate'>,
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
    [`${prefix}::status`]: defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskStatusParams,
      handle: ({ task_id, forget_if_finished }) => {
        const task = tasks.status(kind, task_id, forget_if_finished);
        return task instanceof Promise ? task.then(renderedStatus) : renderedStatus(task);
      },
    }),
    [`${prefix}::user_action`]: defineMethod({
      version: RpcVersion.V2,
      params: enableEthTaskUserActionParams,
      async handle({ task_id, user_action }) {
        await tasks.enterPin(kind, task_id, user_action.pin);
        return 'success';
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
