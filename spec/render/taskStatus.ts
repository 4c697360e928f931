/**
 * The wire form of a task's status (`task::<kind>::status`, spec 4.2): the RPC answers it and the
 * event side writes the same value to the status KV, so both render it here.
 */
import { ActivationError, type ErrorType } from '../errors.ts';
import type { ErrorInfo, EventOf } from '../events.ts';
import { renderActivationResult, renderStandaloneResult } from './activationResult.ts';
import { TaskKind } from '../taskKind.ts';
import { errorOrigin, renderV2Error } from './envelope.ts';
import { WireNames, wireName } from '../wireNames.ts';

/** A task as `task::<kind>::status` answers it, rebuilt from events alone. */
export type TaskView =
  | { readonly state: 'InProgress' | 'UserActionRequired'; readonly details: string }
  | { readonly state: 'Ok'; readonly result: EventOf<'TaskSucceeded'>['data']['activation'] }
  | { readonly state: 'Error'; readonly error: ErrorInfo }
  | { readonly state: 'Cancelled' | 'Forgotten' };

/**
 * A task's status as the wire shows it (spec 4.2, docs/compatibility.md §8): the same for every
 * kind but the `Ok` details, which have the shape of the kind's result; its `details` string in
 * the neutral or the reference's names (docs/compatibility.md §17).
 */
export function renderTaskStatus(
  task: { readonly taskId: number; readonly kind: TaskKind; readonly getBalances: boolean; readonly view: TaskView },
  names: WireNames = WireNames.Neutral,
): unknown {
  const view = task.view;
  switch (view.state) {
    case 'InProgress':
    case 'UserActionRequired':
      return { status: view.state, details: wireName('taskDetails', view.details, names) };
    case 'Ok':
      return {
        status: 'Ok',
        details: task.kind === TaskKind.EnableEth ? renderActivationResult(view.result, task.getBalances) : renderStandaloneResult(view.result),
      };
    case 'Error': {
      const error = new ActivationError(view.error.errorType as ErrorType, view.error.message, view.error.data);
      const { mmrpc: _m, id: _i, ...details } = renderV2Error(error, null, errorOrigin('task', view.error.errorType));
      return { status: 'Error', details };
    }
    default:
      throw new Error(`task ${task.taskId} is not visible`); // unreachable: filtered by the manager
  }
}

