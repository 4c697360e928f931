import type { StoredEvent } from '../../spec/events.ts';
import type { TaskView } from '../../spec/render/taskStatus.ts';
import { TaskKind, taskKindOf } from '../../spec/taskKind.ts';

export type { TaskView };

/** What a task keeps from its `TaskCreated`: everything but its current view. */
export interface TaskHeader {
  readonly taskId: number;
  /** Which `task::<kind>::*` methods answer for the task (its `Ok` result has that kind's shape). */
  readonly kind: TaskKind;
  readonly ticker: string;
  readonly getBalances: boolean;
  /** The session that created the task. */
  readonly sessionId: string;
}

/** A task's header and its current view. */
export interface TaskRecord extends TaskHeader {
  readonly view: TaskView;
}

/** Error message of a task (or activation) its service left unfinished. */
export const interruptedMessage = (sessionId: string): string =>
  `task was interrupted: the service stopped (session ${sessionId})`;

/**
 * The pure task reducer: the task after `event`, or `undefined` when the event does not concern
 * a known task (not a task event, or a task event before its `TaskCreated`). Every event after
 * `TaskCreated` replaces the whole view, so only the header of `prev` is read.
 */
export function nextTaskRecord(prev: TaskHeader | undefined, event: StoredEvent): TaskRecord | undefined {
  if (event.type === 'TaskCreated') {
    const header = taskHeaderOf(event);
    return { ...header, view: { state: 'InProgress', details: FIRST_DETAILS[header.kind] ?? 'ActivatingCoin' } };
  }
  const view = taskViewAfter(event);
  if (prev === undefined || view === undefined) return undefined;
  const { taskId, kind, ticker, getBalances, sessionId } = prev;
  // A KV value written before kinds were kept has none: it was an enable_eth task.
  return { taskId, kind: taskKindOf(kind), ticker, getBalances, sessionId, view };
}

/** A task's first in-progress details where it is not `ActivatingCoin` (as the task machine reports them). */
const FIRST_DETAILS: Partial<Record<TaskKind, string>> = {
  [TaskKind.AccountBalance]: 'RequestingAccountBalance',
  [TaskKind.Withdraw]: 'Preparing',
  [TaskKind.GetNewAddress]: 'Preparing',
  [TaskKind.ScanForNewAddresses]: 'InProgress',
};

/** The header a `TaskCreated` gives its task. */
export function taskHeaderOf(event: Extract<StoredEvent, { type: 'TaskCreated' }>): TaskHeader {
  const { taskId, ticker, getBalances, kind } = event.data;
  return { taskId, kind: taskKindOf(kind), ticker, getBalances, sessionId: event.metadata.sessionId };
}

/** The task id an event is about, if it is a task event. */
export function taskIdOf(event: StoredEvent): number | undefined {
  switch (event.type) {
    case 'TaskCreated':
    case 'TaskProgressed':
    case 'TaskSucceeded':
    case 'TaskFailed':
    case 'TaskInterrupted':
    case 'TaskCancelled':
    case 'TaskForgotten':
    case 'HardwarePinEntered':
      return event.data.taskId;
    default:
      return undefined;
  }
}

/** The `Ok` view of a task's result, by what it did (activate, read an account, add addresses). */
function taskOkView(data: Extract<StoredEvent, { type: 'TaskSucceeded' }>['data']): TaskView {
  if ('activation' in data) return { state: 'Ok', result: data.activation };
  if ('withdrawal' in data) return { state: 'Ok', withdrawal: data.withdrawal };
  if ('accountBalance' in data) return { state: 'Ok', accountBalance: data.accountBalance };
  if ('newAddress' in data) return { state: 'Ok', newAddress: data.newAddress };
  return { state: 'Ok', scannedAddresses: data.scannedAddresses };
}

function taskViewAfter(event: StoredEvent): TaskView | undefined {
  switch (event.type) {
    case 'TaskProgressed':
      return { state: event.data.status, details: event.data.details };
    case 'TaskSucceeded':
      return taskOkView(event.data);
    case 'TaskFailed':
      return { state: 'Error', error: event.data.error };
    case 'TaskInterrupted': {
      const message = interruptedMessage(event.data.sessionId);
      return { state: 'Error', error: { errorType: 'InternalError', message, data: message } };
    }
    case 'TaskCancelled':
      return { state: 'Cancelled' };
    case 'TaskForgotten':
      return { state: 'Forgotten' };
    default:
      return undefined;
  }
}
