/**
 * Where a native daemon's RPC is and how to log in (docs/compatibility.md §9): the coins entry's
 * `confpath` (a `~/` or `USERHOME/` prefix means the home directory, as in the reference), else `~/.<name>/<name>.conf`
 * (Komodo asset chains: `~/.komodo/<asset>/<asset>.conf`). `rpcuser`, `rpcpassword` and `rpcport`
 * are read at top level and, for a test network, from its `[test]` / `[regtest]` section first;
 * the entry's `rpcport` is the fallback. Messages name the file as the daemon does
 * (`~/.komodo/komodo.conf`), or a configured `confpath` by its file name: never an absolute path,
 * which would tell a caller the home directory and the account the service runs as.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { CoinEntry } from '../../spec/coins.ts';

export interface DaemonCredentials {
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

/** Why the daemon's config could not give credentials; the message is safe to show. */
export class DaemonConfError extends Error {
  override name = 'DaemonConfError';
}

/** Where a daemon's config file is, and how messages name it. */
export interface DaemonConfPath {
  /** The file to read. */
  readonly path: string;
  /** Its name in messages, quoted: `'~/.komodo/komodo.conf'`, or `'x.conf' (the coins file's confpath)`. */
  readonly shown: string;
}

/** A file in the home directory, named as the daemon names it: `'~/.komodo/komodo.conf'`. */
function inHome(home: string, relative: string): DaemonConfPath {
  return { path: join(home, relative), shown: `'~/${relative}'` };
}

/** The config file for `entry`, or why it cannot be known. */
export function daemonConfPath(entry: CoinEntry & { asset?: unknown }, home: string = homedir()): DaemonConfPath | { problem: string } {
  const declared = entry.confpath?.trim();
  const homePrefix = ['~/', 'USERHOME/'].find((prefix) => declared?.startsWith(prefix));
  if (declared && homePrefix) return inHome(home, declared.slice(homePrefix.length));
  if (declared) return { path: declared, shown: `'${basename(declared)}' (the coins file's confpath)` };
  if (typeof entry.asset === 'string' && entry.asset !== '') return inHome(home, `.komodo/${entry.asset}/${entry.asset}.conf`);
  if (entry.name === undefined || entry.name === '') {
    return { problem: `${entry.coin}: the coins file sets neither confpath nor name, so the daemon's config file cannot be found` };
  }
  return inHome(home, `.${entry.name}/${entry.name}.conf`);
}

/** The section a test network's settings live in (`network` of the coins entry). */
function networkSection(entry: CoinEntry & { network?: unknown }): string | undefined {
  return entry.network === 'regtest' ? 'regtest' : entry.network === 'testnet' ? 'test' : undefined;
}

/** Reads and parses the daemon's config; throws a `DaemonConfError` saying what is missing. */
export async function readDaemonCredentials(entry: CoinEntry, conf: DaemonConfPath): Promise<DaemonCredentials> {
  let text: string;
  try {
    text = await readFile(conf.path, 'utf8');
  } catch (error) {
    throw new DaemonConfError(`Error parsing the native wallet configuration ${conf.shown}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const ini = parseIni(text);
  const section = networkSection(entry);
  const read = (key: string) => (section === undefined ? undefined : ini.get(`${section}.${key}`)) ?? ini.get(key);
  const user = read('rpcuser');
  if (user === undefined) throw new DaemonConfError(`Conf file ${conf.shown} doesn't have the rpcuser key`);
  const password = read('rpcpassword');
  if (password === undefined) throw new DaemonConfError(`Conf file ${conf.shown} doesn't have the rpcpassword key`);
  const confPort = Number(read('rpcport'));
  const port = Number.isInteger(confPort) && confPort > 0 && confPort < 65536 ? confPort : entry.rpcport;
  if (port === undefined) throw new DaemonConfError('Rpc port is not set neither in `coins` file nor in native daemon config');
  return { port, user, password };
}

/** `key=value` lines, `[section]` headers (keys become `section.key`), `#`/`;` comments. */
export function parseIni(text: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1]!.trim();
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    values.set(section === '' ? key : `${section}.${key}`, line.slice(eq + 1).trim());
  }
  return values;
}
