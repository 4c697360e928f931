/** Helpers for `task::enable_eth::*` tests: calls, polling, and a task's events from the log. */
import type { StoredEvent } from '../../spec/events.ts';
import { taskStream } from '../../events/log/eventLog.ts';
import type { Stack } from './stack.ts';

type Answer = { status: number; body: any };

export const initTask = (s: Stack, params: unknown): Promise<Answer> => s.v2('task::enable_eth::init', params);
export const cancelTask = (s: Stack, taskId: number): Promise<Answer> => s.v2('task::enable_eth::cancel', { task_id: taskId });
/** `status` with an explicit `forget_if_finished` (omitted when `undefined`: the default applies). */
export const taskStatus = (s: Stack, taskId: number, forget?: boolean): Promise<Answer> =>
  s.v2('task::enable_eth::status', forget === undefined ? { task_id: taskId } : { task_id: taskId, forget_if_finished: forget });
export const enterPin = (s: Stack, taskId: number, pin: string): Promise<Answer> =>
  s.v2('task::enable_eth::user_action', { task_id: taskId, user_action: { action_type: 'HardwarePin', pin } });

/** Starts a task and returns its id; fails the test unless `init` answered 200. */
export async function startTask(s: Stack, params: unknown): Promise<number> {
  const { status, body } = await initTask(s, params);
  if (status !== 200 || typeof body?.result?.task_id !== 'number') throw new Error(`init answered ${status}: ${JSON.stringify(body)}`);
  return body.result.task_id;
}

export interface Polled {
  /** The status result that matched. */
  readonly result: any;
  /** Distinct `status/details` values seen while polling, in order (details only for strings). */
  readonly seen: string[];
}

const label = (result: any): string => (typeof result?.details === 'string' ? `${result.status}/${result.details}` : String(result?.status));

/**
 * Polls `status` (without forgetting) until `done(result)`; every answer must be HTTP 200.
 * Fails after `timeoutMs` with what it saw.
 */
export async function pollStatus(
  s: Stack,
  taskId: number,
  done: (result: any) => boolean,
  { timeoutMs = 10_000, intervalMs = 2 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Polled> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await taskStatus(s, taskId, false);
    if (status !== 200) throw new Error(`status of task ${taskId} answered ${status}: ${JSON.stringify(body)}`);
    const l = label(body.result);
    if (seen.at(-1) !== l) seen.push(l);
    if (done(body.result)) return { result: body.result, seen };
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not get there in ${timeoutMs} ms; saw ${seen.join(' → ')}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls until the task reports `status`/`details` (e.g. `InProgress`, `RequestingWalletBalance`). */
export const untilStatus = (s: Stack, taskId: number, status: string, details?: string): Promise<Polled> =>
  pollStatus(s, taskId, (r) => r?.status === status && (details === undefined || r.details === details));

/** Polls until the task is finished (Ok or Error). */
export const untilFinished = (s: Stack, taskId: number, options?: Parameters<typeof pollStatus>[3]): Promise<Polled> =>
  pollStatus(s, taskId, (r) => r?.status === 'Ok' || r?.status === 'Error', options);

/** Every event of one task's stream, in log order. */
export async function taskEvents(s: Stack, taskId: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) if (e.metadata.stream === taskStream(taskId)) out.push(e);
  return out;
}

/**
 * The log's events of `type`, once at least `atLeast` are there (appends after a watcher's change
 * are written asynchronously), or after 5 s with what there is.
 */
export async function eventsOfType(s: Stack, type: StoredEvent['type'], atLeast = 0): Promise<StoredEvent[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found: StoredEvent[] = [];
    for await (const e of s.service.log.read()) if (e.type === type) found.push(e);
    if (found.length >= atLeast || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `TaskProgressed` shown as `TaskProgressed:<status>/<details>`, other events by type. */
export function describeEvents(events: readonly StoredEvent[]): string[] {
  return events.map((e) => (e.type === 'TaskProgressed' ? `TaskProgressed:${e.data.status}/${e.data.details}` : e.type));
}

/** Tickers `get_enabled_coins` lists, sorted. */
export async function enabledTickers(s: Stack): Promise<string[]> {
  const { body } = await s.v2('get_enabled_coins');
  return body.result.coins.map((c: { ticker: string }) => c.ticker).sort();
}

/** Resolves once `predicate` holds, polling every 2 ms; fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
