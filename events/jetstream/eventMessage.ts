import { storedEventSchema, type StoredEvent } from '../../spec/events.ts';
import { parseEventSubject } from './subjects.ts';

/**
 * The wire format of one event message on `ACTIVATION_EVENTS`: the body is the `StoredEvent` as
 * JSON (`type`, `data`, `metadata` with `eventId`, `nodeId`, `sessionId`, `stream`, `streamSeq`,
 * `seq`, `time`), header `Nats-Msg-Id` = `eventId`. The body's `metadata.seq` is the writer's
 * position for the node (the outbox position; for `JetStreamEventLog` the sequence it expects),
 * increasing per node, so consumers may use it for idempotency. The global position is the
 * JetStream stream sequence, which {@link decodeEventMessage} puts in `metadata.seq`.
 */
export type EventBody = StoredEvent;

/** A message as read from the stream (a `JsMsg` or `StoredMsg` fits). */
export interface StreamMessage {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
}

/** The newest message on one subject: its stream sequence and the event it carries. */
export interface SubjectHead {
  /** JetStream stream sequence (what `Nats-Expected-Last-Subject-Sequence` compares with). */
  readonly seq: number;
  /** The event's per-aggregate sequence. */
  readonly streamSeq: number;
  readonly eventId: string;
}

/** A message on the events stream that is not a valid event. */
export class EventMessageError extends Error {
  constructor(
    readonly subject: string,
    readonly seq: number,
    reason: string,
  ) {
    super(`message ${seq} on ${subject} is not a valid event: ${reason}`);
    this.name = 'EventMessageError';
  }
}

/** JSON text of an event message body. */
export function encodeEventBody(event: EventBody): string {
  return JSON.stringify(event);
}

/**
 * Decodes a stream message into a {@link StoredEvent} whose `metadata.seq` is the stream sequence
 * and whose `metadata.nodeId` is taken from the subject when the body lacks it.
 */
export function decodeEventMessage(msg: StreamMessage): StoredEvent {
  const body = parseBody(msg);
  const metadata = body.metadata as Record<string, unknown>;
  const nodeId = metadata.nodeId ?? parseEventSubject(msg.subject)?.nodeId;
  const event = { ...body, metadata: { ...metadata, seq: msg.seq, ...(nodeId === undefined ? {} : { nodeId }) } };
  if (!storedEventSchema.check(event)) throw new EventMessageError(msg.subject, msg.seq, 'does not match the event schema');
  return event as StoredEvent;
}

/** The head a message represents (only `eventId` and `streamSeq` are read from the body). */
export function subjectHeadOf(msg: StreamMessage): SubjectHead {
  const { metadata } = parseBody(msg);
  const { eventId, streamSeq } = metadata as Record<string, unknown>;
  if (typeof eventId !== 'string' || typeof streamSeq !== 'number') {
    throw new EventMessageError(msg.subject, msg.seq, 'metadata lacks eventId or streamSeq');
  }
  return { seq: msg.seq, streamSeq, eventId };
}

function parseBody(msg: StreamMessage): { metadata: object } {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(msg.data).toString('utf8'));
  } catch (e) {
    throw new EventMessageError(msg.subject, msg.seq, `not JSON (${(e as Error).message})`);
  }
  if (typeof body !== 'object' || body === null) throw new EventMessageError(msg.subject, msg.seq, 'not an object');
  const { metadata } = body as { metadata?: unknown };
  if (typeof metadata !== 'object' || metadata === null) throw new EventMessageError(msg.subject, msg.seq, 'no metadata');
  return body as { metadata: object };
}
