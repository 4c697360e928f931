/**
 * The filters of `GET /events` (docs/streaming.md): `coin=<TICKER>`, `task=<id>`, `type=<EventType>`,
 * each repeatable. Values of one key are alternatives; different keys must all match.
 */
import { DomainEvent, type StoredEvent } from '../../spec/events.ts';
import type { TaskDirectory } from './taskDirectory.ts';

/** Every event type the log can hold, read from the schema (new types join by being added there). */
export const EVENT_TYPES: ReadonlySet<string> = new Set(DomainEvent.anyOf.map((schema) => schema.properties.type.const as string));

export interface EventFilter {
  readonly coins: ReadonlySet<string>;
  readonly tasks: ReadonlySet<number>;
  readonly types: ReadonlySet<string>;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const TICKER = /^[A-Za-z0-9._-]{1,64}$/;
const TASK_ID = /^(0|[1-9][0-9]{0,15})$/;

/** Reads the filters from `/events` query parameters; any other parameter is refused (`allowed` excepted). */
export function parseEventFilter(query: URLSearchParams, allowed: ReadonlySet<string>): Parsed<EventFilter> {
  const coins = new Set<string>();
  const tasks = new Set<number>();
  const types = new Set<string>();
  for (const [key, value] of query) {
    if (key === 'coin') {
      if (!TICKER.test(value)) return { ok: false, error: `coin: "${clip(value)}" is not a ticker` };
      coins.add(value);
    } else if (key === 'task') {
      if (!TASK_ID.test(value) || !Number.isSafeInteger(Number(value))) return { ok: false, error: `task: "${clip(value)}" is not a task id (an unsigned integer)` };
      tasks.add(Number(value));
    } else if (key === 'type') {
      if (!EVENT_TYPES.has(value)) return { ok: false, error: `type: "${clip(value)}" is not an event type (one of ${[...EVENT_TYPES].join(', ')})` };
      types.add(value);
    } else if (!allowed.has(key)) {
      return { ok: false, error: `unknown query parameter "${clip(key)}" (expected coin, task, type)` };
    }
  }
  return { ok: true, value: { coins, tasks, types } };
}

/** Whether `event` passes `filter`; `tasks` tells which coins a task event is about. */
export function eventPasses(filter: EventFilter, event: StoredEvent, tasks: TaskDirectory): boolean {
  if (filter.types.size > 0 && !filter.types.has(event.type)) return false;
  const data = event.data as Record<string, unknown>;
  const taskId = typeof data.taskId === 'number' ? data.taskId : undefined;
  if (filter.tasks.size > 0) {
    const onTaskStream = event.metadata.stream.startsWith('task.') && filter.tasks.has(Number(event.metadata.stream.slice(5)));
    if (!onTaskStream && (taskId === undefined || !filter.tasks.has(taskId))) return false;
  }
  if (filter.coins.size > 0 && !aboutCoins(filter.coins, event, data, taskId, tasks)) return false;
  return true;
}

/**
 * An event is about a coin when it is on the coin's stream (its activation, its settings, its
 * tokens' events on a platform's stream), names it as `ticker`, `platform` or among `tokens` /
 * `activeTokens`, or belongs to a task activating it (as platform or token).
 */
function aboutCoins(coins: ReadonlySet<string>, event: StoredEvent, data: Record<string, unknown>, taskId: number | undefined, tasks: TaskDirectory): boolean {
  const stream = event.metadata.stream;
  if (stream.startsWith('coin.') && coins.has(stream.slice(5))) return true;
  if (named(coins, data.ticker) || named(coins, data.platform)) return true;
  if (listed(coins, data.tokens) || listed(coins, data.activeTokens)) return true;
  if (taskId !== undefined) {
    const task = tasks.get(taskId);
    if (task !== undefined) for (const coin of task.coins) if (coins.has(coin)) return true;
  }
  return false;
}

const named = (coins: ReadonlySet<string>, value: unknown): boolean => typeof value === 'string' && coins.has(value);

/** A list of tickers, or of objects with a `ticker` (a `CoinActivated`'s tokens). */
function listed(coins: ReadonlySet<string>, value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  return value.some((item) => named(coins, item) || (typeof item === 'object' && item !== null && named(coins, (item as { ticker?: unknown }).ticker)));
}

function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}
