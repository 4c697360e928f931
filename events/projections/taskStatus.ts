import type { StoredEvent } from '../../spec/events.ts';
import { nextTaskRecord, taskIdOf, type TaskRecord } from './taskReducer.ts';

export type { TaskHeader, TaskRecord, TaskView } from './taskReducer.ts';

/**
 * Status of every task ever created, from the log: ids are never reused (the next id follows the
 * highest ever seen) and finished tasks of earlier sessions stay readable until forgotten. The
 * transitions are the pure {@link nextTaskRecord}, shared with the NATS KV projector.
 */
export class TaskStatusProjection {
  readonly #tasks = new Map<number, TaskRecord>();
  #highestTaskId = -1;
  #position = 0;

  get position(): number {
    return this.#position;
  }

  /** The id the next task gets. */
  get nextTaskId(): number {
    return this.#highestTaskId + 1;
  }

  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return;
    this.#position = event.metadata.seq;
    const taskId = taskIdOf(event);
    if (taskId === undefined) return;
    if (event.type === 'TaskCreated') this.#highestTaskId = Math.max(this.#highestTaskId, taskId);
    const next = nextTaskRecord(this.#tasks.get(taskId), event);
    if (next !== undefined) this.#tasks.set(taskId, next);
  }

  get(taskId: number): TaskRecord | undefined {
    return this.#tasks.get(taskId);
  }

  /** Tasks still in progress that belong to another session (they died with it). */
  orphans(currentSessionId: string): TaskRecord[] {
    return [...this.#tasks.values()].filter(
      (t) => t.sessionId !== currentSessionId && (t.view.state === 'InProgress' || t.view.state === 'UserActionRequired'),
    );
  }
}
