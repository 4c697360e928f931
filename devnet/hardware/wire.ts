/**
 * The Trezor emulator's UDP wire format (protocol v1 over 64-byte reports), as `@trezor/transport`'s
 * `UdpApi` speaks it: an 8-byte `PINGPING` datagram is answered by `PONGPONG`; every other datagram
 * is one 64-byte report. A message's first report is `?##` ‖ type (u16 BE) ‖ length (u32 BE) ‖
 * payload; each further report is `?` ‖ payload; the last one is zero padded.
 */

/** Size of every report (the emulator's HID packet size). */
export const REPORT_SIZE = 64;
/** Liveness probe sent by the host, and the device's answer. */
export const PING = Buffer.from('PINGPING');
/** The device's answer to {@link PING}. */
export const PONG = Buffer.from('PONGPONG');

const MAGIC = 0x3f; // '?'
const SHARP = 0x23; // '#'
const FIRST_HEADER = 9; // '?##' + u16 type + u32 length
const NEXT_HEADER = 1; // '?'
/** Longest message body the reader accepts (the firmware's buffers are smaller still). */
export const MAX_MESSAGE_SIZE = 64 * 1024;

/** One protobuf message as it travels: numeric wire type and encoded body. */
export interface WireMessage {
  readonly messageType: number;
  readonly payload: Buffer;
}

/** Splits one message into zero-padded 64-byte reports. */
export function encodeReports({ messageType, payload }: WireMessage): Buffer[] {
  if (!Number.isInteger(messageType) || messageType < 0 || messageType > 0xffff) throw new RangeError('message type must be u16');
  const reports: Buffer[] = [];
  const first = Buffer.alloc(REPORT_SIZE);
  first.writeUInt8(MAGIC, 0);
  first.writeUInt8(SHARP, 1);
  first.writeUInt8(SHARP, 2);
  first.writeUInt16BE(messageType, 3);
  first.writeUInt32BE(payload.length, 5);
  let offset = payload.copy(first, FIRST_HEADER, 0);
  reports.push(first);
  while (offset < payload.length) {
    const next = Buffer.alloc(REPORT_SIZE);
    next.writeUInt8(MAGIC, 0);
    offset += payload.copy(next, NEXT_HEADER, offset);
    reports.push(next);
  }
  return reports;
}

/**
 * Reassembles reports from one sender into messages. Feed each datagram to {@link push}; it returns
 * the message once its last report arrived. Outside a message, anything but a `?##` report is
 * dropped (so is a declared length over {@link MAX_MESSAGE_SIZE}); inside one, anything but a `?`
 * report is dropped together with the partial message.
 */
export class ReportReader {
  #pending: { messageType: number; buffer: Buffer; filled: number } | undefined;

  /** True while a message has started but not all of its reports arrived. */
  get partial(): boolean {
    return this.#pending !== undefined;
  }

  push(report: Buffer): WireMessage | undefined {
    const pending = this.#pending;
    if (pending !== undefined) {
      // A continuation only needs its '?': payload bytes may well start with '##'.
      if (report.length < NEXT_HEADER || report[0] !== MAGIC) {
        this.#pending = undefined;
        return undefined;
      }
      pending.filled += report.copy(pending.buffer, pending.filled, NEXT_HEADER);
      return this.#completeOrKeep(pending);
    }
    if (report.length < FIRST_HEADER || report[0] !== MAGIC || report[1] !== SHARP || report[2] !== SHARP) return undefined;
    const length = report.readUInt32BE(5);
    if (length > MAX_MESSAGE_SIZE) return undefined;
    const started = { messageType: report.readUInt16BE(3), buffer: Buffer.alloc(length), filled: 0 };
    started.filled = report.copy(started.buffer, 0, FIRST_HEADER);
    return this.#completeOrKeep(started);
  }

  #completeOrKeep(state: { messageType: number; buffer: Buffer; filled: number }): WireMessage | undefined {
    if (state.filled < state.buffer.length) {
      this.#pending = state;
      return undefined;
    }
    this.#pending = undefined;
    return { messageType: state.messageType, payload: state.buffer };
  }
}
