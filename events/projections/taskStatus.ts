import type { ErrorInfo, EventOf, StoredEvent } from '../../spec/events.ts';

/** A task as `task::enable_eth::status` answers it, rebuilt from events alone. */
export type TaskView =
  | { readonly state: 'InProgress' | 'UserActionRequired'; readonly details: string }
  | { readonly state: 'Ok'; readonly result: EventOf<'TaskSucceeded'>['data']['activation'] }
  | { readonly state: 'Error'; readonly error: ErrorInfo }
  | { readonly state: 'Cancelled' | 'Forgotten' };

export interface TaskRecord {
  readonly taskId: number;
  readonly ticker: string;
  readonly getBalances: boolean;
  readonly sessionId: string;
  readonly view: TaskView;
}

const interrupted = (sessionId: string) => `task was interrupted: the service stopped (session ${sessionId})`;

/**
 * Status of every task ever created, from the log: ids are never reused (the next id follows the
 * highest ever seen) and finished tasks of earlier sessions stay readable until forgotten.
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
    switch (event.type) {
      case 'TaskCreated': {
        const { taskId, ticker, getBalances } = event.data;
        this.#highestTaskId = Math.max(this.#highestTaskId, taskId);
        const view: TaskView = { state: 'InProgress', details: 'ActivatingCoin' };
        this.#tasks.set(taskId, { taskId, ticker, getBalances, sessionId: event.metadata.sessionId, view });
        break;
      }
      case 'TaskProgressed':
        this.#update(event.data.taskId, { state: event.data.status, details: event.data.details });
        break;
      case 'TaskSucceeded':
        this.#update(event.data.taskId, { state: 'Ok', result: event.data.activation });
        break;
      case 'TaskFailed':
        this.#update(event.data.taskId, { state: 'Error', error: event.data.error });
        break;
      case 'TaskInterrupted':
        this.#update(event.data.taskId, {
          state: 'Error',
          error: { errorType: 'InternalError', message: interrupted(event.data.sessionId), data: interrupted(event.data.sessionId) },
        });
        break;
      case 'TaskCancelled':
        this.#update(event.data.taskId, { state: 'Cancelled' });
        break;
      case 'TaskForgotten':
        this.#update(event.data.taskId, { state: 'Forgotten' });
        break;
      default:
        break;
    }
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

  #update(taskId: number, view: TaskView): void {
    const task = this.#tasks.get(taskId);
    if (task) this.#tasks.set(taskId, { ...task, view });
  }
}
