/**
 * What the streams need to know of every task, from its `TaskCreated`: the header the status
 * reducer needs, the `client_id` whose `/event-stream` connections hear it, and the coins it is
 * about (for `/events?coin=`). Headers never change after creation, so the current directory
 * serves both live events and a replay from the log.
 */
import type { StoredEvent } from '../../spec/events.ts';
import { taskHeaderOf, type TaskHeader } from '../../events/projections/taskReducer.ts';

export interface TaskEntry {
  readonly header: TaskHeader;
  /** `client_id` of `init` (0 for tasks recorded before it was kept). */
  readonly clientId: number;
  /** The platform and its requested tokens. */
  readonly coins: ReadonlySet<string>;
}

export class TaskDirectory {
  readonly #tasks = new Map<number, TaskEntry>();
  #position = 0;

  /** Feeds one event (older or repeated sequences are ignored, so replay and live may overlap). */
  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return;
    this.#position = event.metadata.seq;
    if (event.type !== 'TaskCreated') return;
    const { taskId, ticker, tokens, clientId } = event.data;
    this.#tasks.set(taskId, {
      header: taskHeaderOf(event),
      clientId: clientId ?? 0,
      coins: new Set([ticker, ...tokens]),
    });
  }

  get(taskId: number): TaskEntry | undefined {
    return this.#tasks.get(taskId);
  }
}
