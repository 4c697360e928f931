import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level (arrays keep their order, `undefined` members are
 * dropped as `JSON.stringify` drops them): equal values give equal text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortKeys(member);
  }
  return out;
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function canonicalDigest(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}
