import { createHash } from 'node:crypto';
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
  const space = line.indexOf(' ');
  if (space !== 16) return undefined;
  const json = line.slice(17);
  if (checksum(json) !== line.slice(0, 16)) return undefined;
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
