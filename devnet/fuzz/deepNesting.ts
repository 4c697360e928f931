/**
 * Deep nesting in generated requests. A request holds a placeholder string where arrays nest
 * thousands of levels deep (no `JSON.stringify` or recursive check could walk them); the
 * placeholders become text only when the body is written.
 */

/** Deepest nesting a body may have (docs/rpc.md "Nesting limit"). */
export const MAX_BODY_DEPTH = 127;

const PLACEHOLDER = /^@@DEEP:(\d+)@@$/;

/** Stands for `levels` arrays nested around `0`. */
export function deepPlaceholder(levels: number): string {
  return `@@DEEP:${levels}@@`;
}

/** The levels a placeholder stands for, or `undefined` for any other value. */
export function placeholderLevels(value: unknown): number | undefined {
  const m = typeof value === 'string' ? PLACEHOLDER.exec(value) : null;
  return m === null ? undefined : Number(m[1]);
}

/** `value` as JSON text, each placeholder written out as its nested arrays. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"@@DEEP:(\d+)@@"/g, (_, n: string) => `${'['.repeat(Number(n))}0${']'.repeat(Number(n))}`);
}

/** Nesting levels of objects and arrays in `value` (a placeholder counts as its arrays; a scalar is 0). */
export function depthOf(value: unknown): number {
  const levels = placeholderLevels(value);
  if (levels !== undefined) return levels;
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce<number>((max, m) => Math.max(max, depthOf(m)), 0);
}
