/** Saves a run as JSON under bench/results/: a timestamped file and `latest.json`. */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, platform, arch } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Directory of saved runs. */
export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

/** Where and when the bench ran, for comparing saved runs. */
export function environment() {
  const list = cpus();
  return { node: process.version, platform: platform(), arch: arch(), cpus: list.length, cpuModel: list[0]?.model ?? 'unknown' };
}

/**
 * `20251121T060300Z`: ISO 8601 basic format (no colons, so the name is portable to every file
 * system) at second precision.
 */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Writes `report` to `<name>-<timestamp>.json` and to `latest` (defaults: the enable_eth_with_tokens
 * bench's `enable-eth-with-tokens-…` and `latest.json`); returns both paths.
 */
export async function saveResults(
  report: unknown,
  date: Date,
  { name = 'enable-eth-with-tokens', latest = 'latest.json' }: { name?: string; latest?: string } = {},
): Promise<string[]> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const paths = [join(RESULTS_DIR, `${name}-${fileTimestamp(date)}.json`), join(RESULTS_DIR, latest)];
  for (const path of paths) await writeFile(path, text);
  return paths;
}
