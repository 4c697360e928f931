import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager, type PubAck } from '@nats-io/jetstream';
import { subjectHeadOf, type SubjectHead } from './eventMessage.ts';
import { EVENTS_STREAM, EVENTS_SUBJECT_ROOT, encodeToken } from './subjects.ts';

/** Every subject of one node's events: `activation.events.<node_id>.>`. */
export function nodeEventsFilter(nodeId: string): string {
  return `${EVENTS_SUBJECT_ROOT}.${encodeToken(nodeId)}.>`;
}

/**
 * Publishes one event message with `Nats-Msg-Id` = `eventId` and
 * `Nats-Expected-Last-Subject-Sequence` = `expectedLastSubjectSeq` (0: the subject must be empty),
 * resolving with the PubAck. A repeated id inside the duplicate window resolves with
 * `duplicate: true` and the first copy's sequence (JetStream checks the id before the expectation).
 */
export function publishEvent(
  js: JetStreamClient,
  subject: string,
  body: string | Uint8Array,
  eventId: string,
  expectedLastSubjectSeq: number,
  timeoutMs: number,
): Promise<PubAck> {
  return js.publish(subject, body, { msgID: eventId, expect: { lastSubjectSequence: expectedLastSubjectSeq }, timeout: timeoutMs });
}

/** The newest event on `subject` (a wildcard takes the newest of all matches), or `undefined`. */
export async function readSubjectHead(jsm: JetStreamManager, subject: string): Promise<SubjectHead | undefined> {
  const msg = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: subject });
  return msg === null ? undefined : subjectHeadOf(msg);
}

/** The server refused a publish because the subject's last sequence was not the expected one. */
export function isWrongLastSequence(e: unknown): boolean {
  return (
    e instanceof JetStreamApiError &&
    (e.code === JetStreamApiCodes.StreamWrongLastSequence || e.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Nothing answered the publish: no stream captures the subject, or JetStream is not ready yet. */
export function isNoResponders(e: unknown): boolean {
  return e instanceof Error && e.name === 'JetStreamNotEnabled';
}

/** The connection is closed for good (nats.js gave up reconnecting, or it was closed). */
export function isConnectionClosed(e: unknown): boolean {
  return e instanceof Error && e.name === 'ClosedConnectionError';
}

/**
 * Another writer appended to an aggregate's subject between this writer's last known message and
 * its append: appending now would interleave two histories of one aggregate.
 */
export class InterleavedWriteError extends Error {
  constructor(
    readonly subject: string,
    readonly expectedLastSeq: number,
    cause: unknown,
  ) {
    super(
      `another writer appended to ${subject}: its last message is no longer stream sequence ${expectedLastSeq} ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); refusing to interleave two histories of one aggregate`,
      { cause },
    );
    this.name = 'InterleavedWriteError';
  }
}
