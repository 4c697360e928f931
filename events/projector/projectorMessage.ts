import { storedEventSchema, type StoredEvent } from '../../spec/events.ts';
import { eventNodeId } from '../projections/statusRouting.ts';
import { parseEventSubject } from '../jetstream/subjects.ts';

/** An event message of the stream, decoded, with the node it belongs to. */
export type DecodedEventMessage =
  | { readonly ok: true; readonly event: StoredEvent; readonly nodeId: string }
  | { readonly ok: false; readonly reason: string };

const text = new TextDecoder();

/**
 * Decodes a message of `ACTIVATION_EVENTS`: its body is a `StoredEvent` as JSON; its node is
 * `metadata.nodeId`, else the subject's `<node_id>`. Anything else is refused with a reason
 * (the projector and replay skip it alike, so the KV still matches a replay).
 */
export function decodeForProjection(subject: string, data: Uint8Array): DecodedEventMessage {
  let value: unknown;
  try {
    value = JSON.parse(text.decode(data));
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (!storedEventSchema.check(value)) {
    const problem = storedEventSchema.firstProblem(value);
    return { ok: false, reason: `not a stored event${problem ? ` (${problem.field}: ${problem.message})` : ''}` };
  }
  const event = value as StoredEvent;
  if (event.metadata.nodeId !== undefined) return { ok: true, event, nodeId: event.metadata.nodeId };
  const fromSubject = parseEventSubject(subject)?.nodeId; // only older writers left it out of the body
  if (fromSubject === undefined) return { ok: false, reason: 'no node id' };
  return { ok: true, event, nodeId: eventNodeId(event, fromSubject) };
}
