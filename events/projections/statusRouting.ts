import type { StoredEvent } from '../../spec/events.ts';
import { NODE_STREAM, coinStream } from '../log/eventLog.ts';
import { encodeToken, statusKey } from '../jetstream/subjects.ts';
import { nextCoinStatus, type CoinStatus } from './coinStatus.ts';
import { nextTaskStatus, type TaskStatusValue } from './taskStatusValue.ts';

/** A value of the status KV bucket: a coin's or a task's status. */
export type StatusValue = CoinStatus | TaskStatusValue;

/** One status key an event updates. */
export type KeyTarget =
  | { readonly kind: 'coin'; readonly key: string; readonly nodeId: string; readonly ticker: string }
  | { readonly kind: 'task'; readonly key: string; readonly nodeId: string };

/** What an event updates: one key, or (a session start) every coin key of its node. */
export type StatusTarget = KeyTarget | { readonly kind: 'nodeCoins'; readonly nodeId: string; readonly keyFilter: string };

const COIN_PREFIX = coinStream('');
const TASK_PREFIX = 'task.';

/** The node an event belongs to: its `metadata.nodeId`, else `fallback` (subject, or an option). */
export function eventNodeId(event: StoredEvent, fallback: string): string {
  return event.metadata.nodeId ?? fallback;
}

/** KV key filter matching every coin key of `nodeId`: `<node_id>.coin.>`. */
export function nodeCoinKeys(nodeId: string): string {
  return `${encodeToken(nodeId)}.coin.>`;
}

/** The status key(s) `event` of node `nodeId` updates, or `undefined` if none. */
export function statusTarget(event: StoredEvent, nodeId: string): StatusTarget | undefined {
  const stream = event.metadata.stream;
  if (stream.startsWith(COIN_PREFIX)) {
    return { kind: 'coin', key: statusKey(nodeId, stream), nodeId, ticker: stream.slice(COIN_PREFIX.length) };
  }
  if (stream.startsWith(TASK_PREFIX)) return { kind: 'task', key: statusKey(nodeId, stream), nodeId };
  if (stream === NODE_STREAM && event.type === 'SessionStarted') return { kind: 'nodeCoins', nodeId, keyFilter: nodeCoinKeys(nodeId) };
  return undefined;
}

/** The target of a coin key found by a `nodeCoins` fan-out, from its current value. */
export function coinTargetOf(key: string, value: StatusValue | undefined): KeyTarget | undefined {
  return value !== undefined && 'state' in value ? { kind: 'coin', key, nodeId: value.nodeId, ticker: value.ticker } : undefined;
}

/**
 * The value of `target` after `event`, or `undefined` when nothing changes. Idempotent: an event
 * at or below the value's `lastSeq` (a redelivery, a duplicate) changes nothing.
 */
export function nextStatusValue(prev: StatusValue | undefined, event: StoredEvent, target: KeyTarget): StatusValue | undefined {
  if (prev !== undefined && event.metadata.seq <= prev.lastSeq) return undefined;
  if (target.kind === 'coin') {
    return nextCoinStatus(prev !== undefined && 'state' in prev ? prev : undefined, event, target);
  }
  return nextTaskStatus(prev !== undefined && 'status' in prev ? prev : undefined, event, target.nodeId);
}
