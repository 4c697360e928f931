/**
 * Startup loader: reads `MM2.json` (env `MM_CONF_PATH`, default `./MM2.json`) and the coins
 * (MM2.json's inline `coins` array when present, else the file at env `MM_COINS_PATH`, default
 * `./coins`). Relative paths resolve against `cwd`. Every failure is a one-line {@link ConfigError}.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { CoinsConfig } from './coinsConfig.ts';
import { ConfigError } from './configError.ts';
import { describeJsonFailure, parseJsonText } from './jsonText.ts';
import { parseNodeSettings, type NodeSettings } from './nodeConfig.ts';

/** Where the coins came from. */
export type CoinsSource = { readonly kind: 'inline' } | { readonly kind: 'file'; readonly path: string };

/** The whole startup configuration. */
export interface NodeConfig extends Omit<NodeSettings, 'inlineCoins'> {
  /** Absolute path of the MM2.json that was read. */
  readonly confPath: string;
  readonly coins: CoinsConfig;
  readonly coinsSource: CoinsSource;
}

/** Inputs of {@link loadNodeConfig}; both default to the current process. */
export interface LoadNodeConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
}

/** Env value, treating an empty string as unset. */
function envPath(env: LoadNodeConfigOptions['env'], name: string): string | undefined {
  const value = env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** How a path is shown in messages: relative to `cwd` when inside it, else absolute. */
function label(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Reads and parses a JSON file; `envName` is the variable that chooses the path. */
async function readJson(path: string, shown: string, envName: string, hint: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(envName, `${shown}: file not found at ${path}; ${hint}`);
    throw new ConfigError(envName, `${shown}: cannot read ${path} (${code ?? 'read error'})`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new ConfigError(envName, `${shown}: not valid JSON: ${describeJsonFailure(parsed)}`);
  return parsed.value;
}

/**
 * Loads and validates the node configuration and the coins. Throws a {@link ConfigError} whose
 * message is one line naming the file and key (never a secret's value).
 */
export async function loadNodeConfig(options: LoadNodeConfigOptions = {}): Promise<NodeConfig> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const confPath = resolve(cwd, envPath(env, 'MM_CONF_PATH') ?? './MM2.json');
  const confLabel = label(cwd, confPath);
  const raw = await readJson(confPath, confLabel, 'MM_CONF_PATH', 'set MM_CONF_PATH or create the file');
  const { inlineCoins, ...settings } = parseNodeSettings(raw, confLabel, cwd);

  let coins: CoinsConfig;
  let coinsSource: CoinsSource;
  if (inlineCoins !== undefined) {
    coins = CoinsConfig.fromEntries(inlineCoins, `${confLabel}: coins`);
    coinsSource = { kind: 'inline' };
  } else {
    const coinsPath = resolve(cwd, envPath(env, 'MM_COINS_PATH') ?? './coins');
    const coinsLabel = label(cwd, coinsPath);
    const hint = 'set MM_COINS_PATH or add a "coins" array to MM2.json';
    const list = await readJson(coinsPath, coinsLabel, 'MM_COINS_PATH', hint);
    if (!Array.isArray(list)) {
      throw new ConfigError('MM_COINS_PATH', `${coinsLabel}: must be a JSON array of coin entries`);
    }
    coins = CoinsConfig.fromEntries(list, coinsLabel);
    coinsSource = { kind: 'file', path: coinsPath };
  }
  return Object.freeze({ ...settings, confPath, coins, coinsSource });
}
