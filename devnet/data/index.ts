import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Path of the committed real coins file (see README.md here). */
export const REAL_COINS_FILE = fileURLToPath(new URL('./coins-config-real.json', import.meta.url));

/** Path of the committed coins walk table (docs/coinsWalk.md). */
export const COINS_WALK_TABLE = fileURLToPath(new URL('./coins-walk.table.tsv', import.meta.url));

/** The real coins file's entries for `tickers`, in the file's order (tests activate them on devnet peers). */
export async function realCoinEntries(tickers: readonly string[]): Promise<Record<string, unknown>[]> {
  const all = JSON.parse(await readFile(REAL_COINS_FILE, 'utf8')) as Record<string, unknown>[];
  return all.filter((entry) => tickers.includes(entry['coin'] as string));
}
