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

function write(level: string, message: string, fields?: LogFields): void {
  process.stderr.write(`${JSON.stringify({ level, msg: message, ...fields })}\n`);
}
