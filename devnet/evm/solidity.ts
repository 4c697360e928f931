/**
 * Compiles Solidity with the `solc` npm package (standard JSON) and caches the artifacts on disk and
 * in memory. The compiler (~0.5 s to load) is only loaded on a cache miss.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { JsonFragment } from 'ethers';

const require = createRequire(import.meta.url);

/** One deployable contract from a compilation. */
export interface CompiledContract {
  /** The key of the source in the compiled set, e.g. `TestToken.sol`. */
  sourceName: string;
  contractName: string;
  abi: JsonFragment[];
  /** Creation bytecode, `0x`-prefixed (empty `0x` for interfaces and abstract contracts). */
  bytecode: string;
}

export interface CompileOptions {
  /** Where artifacts are cached; defaults to `node_modules/.cache/coin-activation/solc`. */
  cacheDir?: string;
}

interface SolcModule {
  compile(input: string): string;
}

interface SolcDiagnostic {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface SolcOutput {
  errors?: SolcDiagnostic[];
  contracts?: Record<string, Record<string, { abi: JsonFragment[]; evm: { bytecode: { object: string } } }>>;
}

interface CachedArtifact {
  compilerVersion: string;
  contracts: CompiledContract[];
}

const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

const memoryCache = new Map<string, Promise<CompiledContract[]>>();

/** The installed compiler version, read from its package.json so the compiler itself need not load. */
export function solcVersion(): string {
  return (require('solc/package.json') as { version: string }).version;
}

/** The default on-disk cache folder, inside the `node_modules` that holds `solc`. */
export function defaultSolidityCacheDir(): string {
  const nodeModules = path.dirname(path.dirname(require.resolve('solc/package.json')));
  return path.join(nodeModules, '.cache', 'coin-activation', 'solc');
}

/**
 * Compiles a set of self-contained sources (`{ 'A.sol': 'pragma …' }`) and returns every contract.
 * Results are cached by sha256 of compiler version, settings and sources; any change recompiles.
 * Throws an Error carrying solc's formatted messages when compilation fails.
 */
export function compileSolidity(sources: Record<string, string>, options: CompileOptions = {}): Promise<CompiledContract[]> {
  const compilerVersion = solcVersion();
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: COMPILER_SETTINGS,
  };
  const key = createHash('sha256').update(JSON.stringify({ compilerVersion, input })).digest('hex');
  const cacheFile = path.join(options.cacheDir ?? defaultSolidityCacheDir(), `${key}.json`);
  let pending = memoryCache.get(cacheFile);
  if (!pending) {
    pending = loadOrCompile(cacheFile, compilerVersion, JSON.stringify(input));
    memoryCache.set(cacheFile, pending);
    pending.catch(() => memoryCache.delete(cacheFile));
  }
  return pending;
}

/**
 * Compiles one `.sol` file from disk and returns the contract named `contractName`
 * (default: the file name without extension).
 */
export async function compileSolidityFile(
  filePath: string,
  contractName = path.basename(filePath, '.sol'),
  options: CompileOptions = {},
): Promise<CompiledContract> {
  const sourceName = path.basename(filePath);
  const contracts = await compileSolidity({ [sourceName]: await readFile(filePath, 'utf8') }, options);
  const found = contracts.find((c) => c.contractName === contractName);
  if (!found) throw new Error(`contract ${contractName} not found in ${filePath}`);
  return found;
}

/** Forgets in-memory artifacts (the disk cache stays). For tests. */
export function clearSolidityMemoryCache(): void {
  memoryCache.clear();
}

async function loadOrCompile(cacheFile: string, compilerVersion: string, input: string): Promise<CompiledContract[]> {
  const cached = await readArtifact(cacheFile, compilerVersion);
  if (cached) return cached;
  const contracts = runCompiler(input);
  await writeArtifact(cacheFile, { compilerVersion, contracts });
  return contracts;
}

function runCompiler(input: string): CompiledContract[] {
  const solc = require('solc') as SolcModule;
  const output = JSON.parse(solc.compile(input)) as SolcOutput;
  const errors = (output.errors ?? []).filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((d) => d.formattedMessage ?? d.message).join('\n')}`);
  }
  const contracts: CompiledContract[] = [];
  for (const [sourceName, byName] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, artifact] of Object.entries(byName)) {
      contracts.push({ sourceName, contractName, abi: artifact.abi, bytecode: `0x${artifact.evm.bytecode.object}` });
    }
  }
  return contracts;
}

async function readArtifact(cacheFile: string, compilerVersion: string): Promise<CompiledContract[] | undefined> {
  try {
    const artifact = JSON.parse(await readFile(cacheFile, 'utf8')) as Partial<CachedArtifact>;
    if (artifact.compilerVersion === compilerVersion && Array.isArray(artifact.contracts)) return artifact.contracts;
  } catch {
    // missing or corrupt: recompile
  }
  return undefined;
}

/** Writes atomically (temp file + rename) so concurrent test processes never read half a file. */
async function writeArtifact(cacheFile: string, artifact: CachedArtifact): Promise<void> {
  const tempFile = `${cacheFile}.${randomUUID()}.tmp`;
  try {
    await mkdir(path.dirname(cacheFile), { recursive: true });
    await writeFile(tempFile, JSON.stringify(artifact));
    await rename(tempFile, cacheFile);
  } catch {
    // The cache is an optimisation; an unwritable cache folder must not fail the compile.
  }
}
