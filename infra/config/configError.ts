/**
 * The startup error of the configuration layer: one line naming the file and key and saying what
 * is wrong. Messages never contain the value of `rpc_password` or `passphrase`.
 */

/** A configuration problem found at startup. `key` is the offending key path or env variable. */
export class ConfigError extends Error {
  /** The key path (`rpcport`, `coins[12].decimals`) or env variable (`MM_CONF_PATH`) at fault. */
  readonly key: string;

  constructor(key: string, message: string) {
    super(oneLine(message));
    this.name = 'ConfigError';
    this.key = key;
  }
}

/** Collapses line breaks and runs of whitespace so a message prints as one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Type guard that does not depend on module identity. */
export function isConfigError(e: unknown): e is ConfigError {
  return e instanceof ConfigError || (e instanceof Error && e.name === 'ConfigError' && 'key' in e);
}

/**
 * The single line to print when startup fails: a {@link ConfigError}'s message as is, anything
 * else as `startup failed: <name>: <message>` (first line only, no stack).
 */
export function formatStartupError(e: unknown): string {
  if (isConfigError(e)) return `config error: ${e.message}`;
  if (e instanceof Error) return oneLine(`startup failed: ${e.name}: ${e.message.split('\n')[0] ?? ''}`);
  return oneLine(`startup failed: ${String(e)}`);
}
