/**
 * The house's floors (docs/architecture.md), read from the code's own imports: static, dynamic and
 * type-only imports and re-exports all count. Test files may import anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = import.meta.dirname;
const SKIP = new Set(['node_modules', '.git', 'data', '.devnet', '.scratch', 'docs']);

/** Top-level folders of the product, bottom floor first. */
const PRODUCT = ['spec', 'kernel', 'machines', 'actors', 'events', 'infra', 'rpc'] as const;
/** What each product folder may import, besides itself. */
const MAY_IMPORT: Record<(typeof PRODUCT)[number], readonly string[]> = {
  spec: [],
  kernel: ['spec'],
  machines: ['spec', 'kernel'],
  actors: ['spec', 'kernel', 'machines', 'events'],
  events: ['spec', 'kernel', 'machines'],
  infra: ['spec', 'kernel', 'machines', 'actors'],
  rpc: ['spec', 'kernel', 'machines', 'actors', 'events'],
};

interface SourceFile {
  readonly path: string;
  /** Imports of files of this repository, as repository paths. */
  readonly local: string[];
  /** Imports of packages, by package name. */
  readonly packages: string[];
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : listSources(join(dir, e.name));
    return /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts') ? [relative(root, join(dir, e.name))] : [];
  });
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier);
}

function read(path: string): SourceFile {
  // preProcessFile lists every import form: `import type`, `export … from`, `import(…)`.
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, path), 'utf8'), true, true);
  const local: string[] = [];
  const packages: string[] = [];
  for (const { fileName } of importedFiles) {
    if (fileName.startsWith('.')) local.push(relative(root, join(root, dirname(path), fileName)));
    else if (!fileName.startsWith('node:') && !builtinModules.includes(fileName)) packages.push(packageName(fileName));
  }
  return { path, local, packages };
}

const sources = listSources(root).map(read);
const floorOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)');

test('every product folder imports only the floors below it', () => {
  const wrong = sources.flatMap(({ path, local }) => {
    const floor = floorOf(path) as (typeof PRODUCT)[number];
    if (!PRODUCT.includes(floor)) return [];
    return local.filter((to) => floorOf(to) !== floor && !MAY_IMPORT[floor].includes(floorOf(to))).map((to) => `${path} -> ${to}`);
  });
  assert.deepEqual(wrong, []);
});

test('the dev wing, benches and scripts are seen only by the composition root, main.ts and each other', () => {
  const wrong = sources.flatMap(({ path, local }) =>
    PRODUCT.includes(floorOf(path) as never) ? local.filter((to) => !PRODUCT.includes(floorOf(to) as never)).map((to) => `${path} -> ${to}`) : [],
  );
  assert.deepEqual(wrong, []);
  // The root's own files serve production: only main.ts may reach into the dev wing (dev mode).
  const rootWrong = sources.flatMap(({ path, local }) =>
    floorOf(path) === '(root)' && path !== 'main.ts' ? local.filter((to) => ['devnet', 'bench', 'scripts'].includes(floorOf(to))).map((to) => `${path} -> ${to}`) : [],
  );
  assert.deepEqual(rootWrong, []);
});

test('nothing in a product folder exists only for tests or dev mode', () => {
  // Reached from what production runs: the service (main.ts, dev mode aside) and the operator CLIs.
  const graph = new Map(sources.map((s) => [s.path, s.local]));
  const reached = new Set<string>();
  const visit = (path: string): void => {
    if (reached.has(path) || floorOf(path) === 'devnet') return;
    reached.add(path);
    for (const to of graph.get(path) ?? []) visit(to);
  };
  ['main.ts', 'scripts/projector.ts', 'scripts/replay.ts'].forEach(visit);
  const idle = sources.filter(({ path }) => PRODUCT.includes(floorOf(path) as never) && !reached.has(path)).map(({ path }) => path);
  assert.deepEqual(idle, []);
});

test('no import circles', () => {
  const graph = new Map(sources.map((s) => [s.path, s.local]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (path: string, trail: string[]): void => {
    if (state.get(path) === 'done') return;
    if (state.get(path) === 'open') {
      circles.push([...trail.slice(trail.indexOf(path)), path].join(' -> '));
      return;
    }
    state.set(path, 'open');
    for (const to of graph.get(path) ?? []) if (graph.has(to)) visit(to, [...trail, path]);
    state.set(path, 'done');
  };
  for (const path of graph.keys()) visit(path, []);
  assert.deepEqual(circles, []);
});

test('production code uses only production dependencies (a production install runs it)', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const production = new Set(Object.keys(manifest.dependencies));
  const wrong = sources.flatMap(({ path, packages }) =>
    PRODUCT.includes(floorOf(path) as never) || floorOf(path) === '(root)'
      ? packages.filter((p) => !production.has(p)).map((p) => `${path} needs ${p}`)
      : [],
  );
  assert.deepEqual(wrong, []);
});

test('the rule reads every import form', () => {
  const { importedFiles } = ts.preProcessFile(
    "import type { A } from './a.ts';\nexport { B } from './b.ts';\nconst c = await import('./c.ts');\nimport './d.ts';",
    true,
    true,
  );
  assert.deepEqual(importedFiles.map((f) => f.fileName), ['./a.ts', './b.ts', './c.ts', './d.ts']);
});
