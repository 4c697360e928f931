import { fileURLToPath } from 'node:url';

/** Path of the committed real coins file (see README.md here). */
export const REAL_COINS_FILE = fileURLToPath(new URL('./coins-config-real.json', import.meta.url));

/** Path of the committed coins walk table (docs/coinsWalk.md). */
export const COINS_WALK_TABLE = fileURLToPath(new URL('./coins-walk.table.tsv', import.meta.url));
