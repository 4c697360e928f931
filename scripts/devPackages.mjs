// Which kind of install this checkout has. Plain JS: `npm start`/`npm test` run it before tsx is
// installed (scripts/ensure-deps.mjs), and main.ts asks it before loading dev mode.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The `devDependencies` of `root`'s package.json that are not installed. Empty in a developer
 * checkout; a production install (`npm ci --omit=dev`) lacks them, and so cannot run dev mode.
 * @param {string} root
 * @returns {string[]}
 */
export function missingDevPackages(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.keys(manifest.devDependencies ?? {}).filter((name) => !existsSync(join(root, 'node_modules', name, 'package.json')));
}
