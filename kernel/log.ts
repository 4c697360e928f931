/**
 * The one structured logger every layer writes to (RPC, outbox, projector, hardware adapter).
 * Callers redact before logging: no request body, `userpass`, `params`, key or PIN ever reaches it.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Discards everything (tests, benchmarks). */
export const silentLog: Log = {
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** One JSON line per entry on stderr. */
export const consoleLog: Log = {
  info: (message, fields) => write('info', message, fields),
  warn: (message, fields) => write('warn', message, fields),
  error: (message, fields) => write('error', message, fields),
};

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

/** Threshold from env `COIN_ACTIVATION_LOG` (`silent`, `error`, `warn`, `info`; default `info`). */
function threshold(): number {
  const wanted = process.env.COIN_ACTIVATION_LOG;
  return wanted !== undefined && wanted in LEVELS ? LEVELS[wanted as keyof typeof LEVELS] : LEVELS.info;
}

function write(level: Level, message: string, fields?: LogFields): void {
  if (LEVELS[level] > threshold()) return;
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
}
