import type { StoredEvent } from '../../spec/events.ts';
import { coinStream, NODE_STREAM, taskStream } from '../log/eventLog.ts';
import { selected, type ReplaySource } from './replay.ts';

/** Whose history: one coin or one task, of one node or of every node. */
export type HistorySubject =
  | { readonly kind: 'coin'; readonly ticker: string; readonly node?: string }
  | { readonly kind: 'task'; readonly taskId: number; readonly node?: string };

/** One event of an aggregate's history. */
export interface HistoryEntry {
  readonly nodeId: string;
  readonly event: StoredEvent;
}

/**
 * Every event of one coin's or one task's stream, oldest first. A coin's history also shows the
 * session starts of its node once the coin has a history there (each one reset it to inactive).
 */
export async function* history(source: ReplaySource, subject: HistorySubject): AsyncIterable<HistoryEntry> {
  const stream = subject.kind === 'coin' ? coinStream(subject.ticker) : taskStream(subject.taskId);
  const seenOn = new Set<string>();
  for await (const { event, nodeId } of selected(source, subject.node)) {
    if (event.metadata.stream === stream) {
      seenOn.add(nodeId);
      yield { nodeId, event };
    } else if (subject.kind === 'coin' && event.metadata.stream === NODE_STREAM && event.type === 'SessionStarted' && seenOn.has(nodeId)) {
      yield { nodeId, event };
    }
  }
}

/** `<seq> <time> <node> <type> <data as JSON>`: one line per event. */
export function formatHistoryLine({ nodeId, event }: HistoryEntry): string {
  return `${event.metadata.seq} ${event.metadata.time} ${nodeId} ${event.type} ${JSON.stringify(event.data)}`;
}
