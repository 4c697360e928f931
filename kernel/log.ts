/**
 * The minimal structured logger the RPC layer writes to. Callers redact before logging: nothing
 * in `rpc/` ever passes a request body, `userpass` or `params` to a logger.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface RpcLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Discards everything (tests, benchmarks). */
export const silentLog: RpcLog = {
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** One JSON line per entry on stderr. */
export const consoleLog: RpcLog = {
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
