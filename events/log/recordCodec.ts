import { createHash, hash } from 'node:crypto';
import { storedEventSchema, type StoredEvent } from '../../spec/events.ts';

/**
 * One log record per line: `<checksum> <json>\n`, checksum = first 16 hex of sha256(json).
 * A torn write (crash mid-append) leaves a last line that fails the checksum or lacks `\n`.
 */
export function encodeRecord(event: StoredEvent): string {
  const json = JSON.stringify(event);
  return `${checksum(json)} ${json}\n`;
}

/** Decodes one line (without its `\n`); `undefined` if the record is damaged. */
export function decodeRecord(line: string): StoredEvent | undefined {
  if (line.length < 17 || line.charCodeAt(16) !== 0x20) return undefined;
  const json = line.slice(17);
  return hash('sha256', json, 'hex').slice(0, 16) === line.slice(0, 16) ? parseEvent(json) : undefined;
}

/**
 * Decodes one record from its bytes (without the `\n`); `undefined` if it is damaged. Also
 * returns the event's JSON exactly as stored (a view of `bytes`), so a reader can pass it on
 * without encoding it again.
 * The checksum is computed over the bytes themselves: the same sha256 as over the decoded text,
 * since a writer only ever stores valid UTF-8 (invalid bytes cannot match the checksum either way).
 */
export function decodeRecordBytes(bytes: Buffer): { event: StoredEvent; json: Buffer } | undefined {
  if (bytes.length < 17 || bytes[16] !== 0x20) return undefined;
  const body = bytes.subarray(17);
  if (hash('sha256', body, 'hex').slice(0, 16) !== bytes.toString('latin1', 0, 16)) return undefined;
  const event = parseEvent(body.toString('utf8'));
  return event === undefined ? undefined : { event, json: body };
}

function parseEvent(json: string): StoredEvent | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return storedEventSchema.check(value) ? (value as StoredEvent) : undefined;
  } catch {
    return undefined;
  }
}

function checksum(json: string): string {
  return createHash('sha256').update(json).digest('hex').slice(0, 16);
}
