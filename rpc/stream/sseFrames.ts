/**
 * Server-sent-event frames of `/event-stream` and `/events` (docs/streaming.md). Every event frame
 * carries `id: <log sequence>`; control frames (`ready`, `heartbeat`, `overflow`) are named and
 * carry no `id:`, so a resume never starts after one of them.
 */
import type { StoredEvent } from '../../spec/events.ts';
import { encodeEventBody } from '../../events/jetstream/eventMessage.ts';

/** Names of the control frames. */
export const ControlFrame = {
  Ready: 'ready',
  Heartbeat: 'heartbeat',
  Overflow: 'overflow',
} as const;
export type ControlFrame = (typeof ControlFrame)[keyof typeof ControlFrame];

/** `_type` of a control frame's data, in the reference's `{"_type","message"}` wrapper. */
const CONTROL_TYPE: Record<ControlFrame, string> = { ready: 'READY', heartbeat: 'HEARTBEAT', overflow: 'OVERFLOW' };

/** `/events`: `event: <Type>`, `id: <seq>`, `data: <the event as on NATS>`. */
export function domainEventFrame(event: StoredEvent): string {
  return `event: ${event.type}\nid: ${event.metadata.seq}\ndata: ${encodeEventBody(event)}\n\n`;
}

/**
 * `/event-stream`: the reference's frame `data: {"_type":"TASK:<id>","message":<status>}`, plus
 * `id: <seq of the event that made this status>`. No `event:` line, so an EventSource `onmessage`
 * (and any client of the reference) receives it.
 */
export function taskStatusFrame(seq: number, taskId: number, status: unknown): string {
  return `id: ${seq}\ndata: ${JSON.stringify({ _type: `TASK:${taskId}`, message: status })}\n\n`;
}

/** A named control frame: `event: <name>` and `data: {"_type":"<NAME>","message":<message>}`, no `id:`. */
export function controlFrame(name: ControlFrame, message: unknown = {}): string {
  return `event: ${name}\ndata: ${JSON.stringify({ _type: CONTROL_TYPE[name], message })}\n\n`;
}

/**
 * A streamer's frame in the reference's form, `data: {"_type":"<STREAMER_ID>","message":<message>}`
 * with no `event:` (an EventSource `onmessage` gets it) and no `id:` (it is not a logged event).
 */
export function streamerFrame(streamerId: string, message: unknown): string {
  return `data: ${JSON.stringify({ _type: streamerId, message })}\n\n`;
}
