import { randomUUID } from 'node:crypto';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { NODE_STREAM, coinStream, taskStream } from '../../events/log/eventLog.ts';

/**
 * Writes stored events the way one node's log would (consecutive `seq`, per-stream `streamSeq`,
 * its `nodeId` and session, increasing times), without a log: fixtures for projection tests.
 */
export class EventScript {
  readonly nodeId: string;
  readonly events: StoredEvent[] = [];
  sessionId: string;
  #seq = 0;
  #time: number;
  readonly #streamSeq = new Map<string, number>();

  constructor(nodeId: string, options: { readonly startTime?: number; readonly sessionId?: string } = {}) {
    this.nodeId = nodeId;
    this.sessionId = options.sessionId ?? randomUUID();
    this.#time = options.startTime ?? Date.UTC(2025, 0, 1);
  }

  /** Appends `event` to `stream` and returns the stored event. */
  append(stream: string, event: DomainEvent): StoredEvent {
    const streamSeq = (this.#streamSeq.get(stream) ?? 0) + 1;
    this.#streamSeq.set(stream, streamSeq);
    this.#time += 1000;
    const metadata = {
      eventId: randomUUID(),
      seq: ++this.#seq,
      stream,
      streamSeq,
      sessionId: this.sessionId,
      nodeId: this.nodeId,
      time: new Date(this.#time).toISOString(),
    };
    const stored = { ...event, metadata } as StoredEvent;
    this.events.push(stored);
    return stored;
  }

  /** A new session: `SessionStarted` on the node stream. */
  session(sessionId: string = randomUUID()): StoredEvent {
    this.sessionId = sessionId;
    return this.append(NODE_STREAM, { type: 'SessionStarted', data: { sessionId, version: '0.1.0', derivationMethod: 'Iguana' } });
  }

  /** An event of coin `ticker`'s stream. */
  coin(ticker: string, event: DomainEvent): StoredEvent {
    return this.append(coinStream(ticker), event);
  }

  /** An event of task `taskId`'s stream. */
  task(taskId: number, event: DomainEvent): StoredEvent {
    return this.append(taskStream(taskId), event);
  }
}
