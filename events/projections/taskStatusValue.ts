import type { StoredEvent } from '../../spec/events.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { nextTaskRecord, type TaskRecord } from './taskReducer.ts';
import type { TaskKind } from '../../spec/taskKind.ts';

/** `status` of a task in the KV: the wire statuses, plus the two a task ends invisible with. */
export type TaskStatusName = 'InProgress' | 'UserActionRequired' | 'Ok' | 'Error' | 'Cancelled' | 'Forgotten';

/**
 * Status of one task of one node: the value of KV key `<node_id>.task.<task_id>`. `status` and
 * `details` are exactly what `task::<kind>::status` answers (its `result`); a cancelled or
 * forgotten task, which the RPC no longer answers, is `{status: 'Cancelled' | 'Forgotten'}`
 * without details. The other fields describe the task.
 */
export interface TaskStatusValue {
  readonly status: TaskStatusName;
  readonly details?: unknown;
  readonly nodeId: string;
  readonly taskId: number;
  /** The task's methods: `task::<kind>::*`. */
  readonly kind: TaskKind;
  readonly ticker: string;
  readonly getBalances: boolean;
  /** The session that created the task. */
  readonly sessionId: string;
  /** `metadata.seq` (the node's log position) of the last event applied. */
  readonly lastSeq: number;
  /** `metadata.time` of the last event applied. */
  readonly updatedAt: string;
}

/** What `task::<kind>::status` answers for `task` (`{status}` alone when it answers none). */
export function taskWireStatus(task: TaskRecord): { status: TaskStatusName; details?: unknown } {
  const state = task.view.state;
  if (state === 'Cancelled' || state === 'Forgotten') return { status: state };
  return renderTaskStatus(task) as { status: TaskStatusName; details: unknown };
}

/**
 * The pure task reducer over KV values: the value after `event`, or `undefined` when it does not
 * change. Built on {@link nextTaskRecord} (the in-memory projection's reducer) and
 * `renderTaskStatus`, so the KV says exactly what the RPC says.
 */
export function nextTaskStatus(prev: TaskStatusValue | undefined, event: StoredEvent, nodeId: string): TaskStatusValue | undefined {
  const record = nextTaskRecord(prev, event);
  return record === undefined ? undefined : taskStatusValueOf(record, nodeId, event.metadata);
}

/** The KV value of `task` of node `nodeId` whose last event is `last`. */
export function taskStatusValueOf(task: TaskRecord, nodeId: string, last: { readonly seq: number; readonly time: string }): TaskStatusValue {
  const wire = taskWireStatus(task);
  // field by field, not a spread of `wire`: a replay's digest renders every task key this way
  const value = { status: wire.status } as { -readonly [K in keyof TaskStatusValue]: TaskStatusValue[K] };
  if ('details' in wire) value.details = wire.details;
  value.nodeId = nodeId;
  value.taskId = task.taskId;
  value.kind = task.kind;
  value.ticker = task.ticker;
  value.getBalances = task.getBalances;
  value.sessionId = task.sessionId;
  value.lastSeq = last.seq;
  value.updatedAt = last.time;
  return value;
}
