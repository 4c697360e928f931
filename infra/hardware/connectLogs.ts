/**
 * `@trezor/connect` keeps the last 100 log entries per component in memory even with `debug: false`
 * (its `Log.addMessage` always records), and `DeviceCommands` records each sent message, the PIN
 * matrix positions of `PinMatrixAck` included. {@link redactPinEntries} blanks those entries after
 * every call so the positions do not linger in connect's memory (readable via its `getLog`).
 */
import { createRequire } from 'node:module';

interface LogEntry {
  message?: unknown;
}

/** Replaces the payload of every recorded `Sending PinMatrixAck` entry. Returns how many. */
export function redactPinEntries(): number {
  const requireFromConnect = createRequire(createRequire(import.meta.url).resolve('@trezor/connect'));
  const debug = requireFromConnect('./utils/debug') as { getLog?: () => LogEntry[] };
  if (typeof debug.getLog !== 'function') return 0;
  let redacted = 0;
  for (const entry of debug.getLog()) {
    const args = entry.message;
    if (Array.isArray(args) && args.includes('PinMatrixAck')) {
      for (let i = 0; i < args.length; i += 1) if (typeof args[i] === 'object' && args[i] !== null) args[i] = '(redacted)';
      redacted += 1;
    }
  }
  return redacted;
}
