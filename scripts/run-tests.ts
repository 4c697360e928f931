/**
 * Runs every `*.test.ts` file with node's test runner. Node 20's `--test` does not find `.ts` files
 * by itself (and exits 0 having run nothing), so the list is built here, and an empty list fails.
 * Usage: `npm test` (all), `npm test -- rpc/` (files under a path), `--unit` (skip `*.int.test.ts`).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', '.git', 'bench', 'data', '.devnet']);

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : findTests(join(dir, entry.name));
    return entry.name.endsWith('.test.ts') ? [relative(root, join(dir, entry.name))] : [];
  });
}

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => !a.startsWith('--'));
const files = findTests(root)
  .filter((f) => filters.length === 0 || filters.some((p) => f.startsWith(p.replace(/^\.\//, ''))))
  .filter((f) => !unitOnly || !f.endsWith('.int.test.ts'))
  .sort();

if (files.length === 0) {
  console.error(`no test files found${filters.length ? ` under ${filters.join(', ')}` : ''}`);
  process.exit(1);
}
console.error(`running ${files.length} test files`);
/**
 * A test file that never ends (a test waiting forever, or a child process it left running, which
 * keeps its process alive) fails after this long, naming the file, and the run goes on: it must
 * not hold CI until CI's own limit. Node applies it to each file and each test. The longest test
 * took 21 s in a full run on a 2-core machine, and the whole suite about 5 minutes. @default 10 minutes
 */
const FILE_LIMIT_MS = 600_000;
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-timeout=${FILE_LIMIT_MS}`, '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, COIN_ACTIVATION_LOG: process.env.COIN_ACTIVATION_LOG ?? 'silent' },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
