/**
 * Protobuf encoding of device messages with `@trezor/protobuf`'s bundled definitions (the same
 * `messages.json` that `@trezor/connect` loads), so the double and the library agree on every field.
 * Bytes fields are hex strings and enums are names, in both directions, as in `@trezor/protobuf`.
 */
import { createRequire } from 'node:module';
import { decodeMessage, encodeMessage, parseConfigure } from '@trezor/protobuf';
import type { WireMessage } from './wire.ts';

const require = createRequire(import.meta.url);
const root = parseConfigure(require('@trezor/protobuf/messages.json') as Parameters<typeof parseConfigure>[0]);

/** A message's fields (bytes as hex, enums as names). */
export type Fields = Readonly<Record<string, unknown>>;

/** A decoded device message, e.g. `{ name: 'Initialize', fields: {} }`. */
export interface DeviceMessage {
  readonly name: string;
  readonly fields: Fields;
}

/** Encodes a named message (e.g. `Features`) for the wire. Throws on an unknown name. */
export function encodeDeviceMessage(name: string, fields: Fields = {}): WireMessage {
  const { messageType, message } = encodeMessage(root, name, { ...fields });
  if (typeof messageType !== 'number') throw new Error(`no wire type for ${name}`);
  return { messageType, payload: message };
}

/** Decodes a wire message; a type id the definitions do not know decodes as `Unknown_<id>`. */
export function decodeDeviceMessage({ messageType, payload }: WireMessage): DeviceMessage {
  let decoded: { type: string; message: unknown };
  try {
    decoded = decodeMessage(root, messageType, payload);
  } catch {
    return { name: `Unknown_${messageType}`, fields: {} };
  }
  return { name: decoded.type, fields: (decoded.message ?? {}) as Fields };
}
