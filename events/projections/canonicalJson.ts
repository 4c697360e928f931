import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level (arrays keep their order, `undefined` members are
 * dropped as `JSON.stringify` drops them): equal values give equal text.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value) as string; // undefined for undefined, as JSON.stringify
}

/**
 * Written out directly rather than as `JSON.stringify` of a sorted copy: a replay's digest covers
 * every status key, and the copy was most of its cost. Leaves (strings, numbers, booleans, null)
 * are `JSON.stringify`'s own text; `undefined` is what `JSON.stringify` would drop.
 */
function canonical(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? '' : ','}${canonical(value[i]) ?? 'null'}`;
    return `${out}]`;
  }
  let out = '{';
  for (const key of Object.keys(value).sort()) {
    const member = canonical((value as Record<string, unknown>)[key]);
    if (member !== undefined) out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${member}`;
  }
  return `${out}}`;
}

/**
 * `sha256:<hex>` of the canonical JSON of the object of `entries` (sorted by key, keys unique),
 * without building that object or its whole text: the text is hashed in slices as it is written.
 */
export function canonicalDigestOfSortedEntries(entries: Iterable<readonly [string, unknown]>): string {
  const hash = createHash('sha256');
  let slice = '{';
  let first = true;
  for (const [key, value] of entries) {
    const member = canonical(value);
    if (member === undefined) continue;
    slice += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
    first = false;
    if (slice.length >= 65_536) {
      hash.update(slice);
      slice = '';
    }
  }
  return `sha256:${hash.update(`${slice}}`).digest('hex')}`;
}

