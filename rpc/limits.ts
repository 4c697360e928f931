/**
 * Bounds on what a request body may be, shared by every transport (docs/compatibility.md §1): its
 * size in bytes, its encoding, and how deeply it nests. They are checked before any schema work,
 * because schema checks and default-filling recurse once per level and would overflow the stack
 * on a body nested tens of thousands of levels deep.
 */

/**
 * Largest accepted body. Larger ones are answered 413 without being read (HTTP) or parsed (NATS,
 * whose server also caps a message at its `max_payload`, 1 MiB by default).
 * @default 1 MiB
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Deepest accepted nesting of objects and arrays, counted from the body: `{"a":[1]}` is 2 levels,
 * and a batch's own array is one level. 127 is what the reference's JSON parser accepts (it fails
 * at the 128th level), so a body the reference would parse is never refused here. The deepest
 * request of the interface nests 5 levels (a batched `enable_eth_with_tokens` node entry).
 * @default 127
 */
export const DEFAULT_MAX_DEPTH = 127;

/**
 * Most requests in one batch. Each element is routed, authenticated and answered on its own, so a
 * 1 MiB body of 500,000 tiny elements would hold the event loop for seconds (about 14 µs each) and
 * answer ~100 MB; a larger batch is answered 413 as a whole, before any element is looked at. The
 * reference has no limit; a client with more coins sends several batches.
 * @default 1000
 */
export const DEFAULT_MAX_BATCH = 1000;

/** The 413 body of a batch with more than `maxBatch` requests. */
export function batchTooLarge(maxBatch: number, size: number): { error: string } {
  return { error: `A batch may hold at most ${maxBatch} requests; this one holds ${size}` };
}

/** The 413 body (`{"error": …}`, the transport's own answer, as for every body-level failure). */
export function bodyTooLarge(maxBodyBytes: number): { error: string } {
  return { error: `Request body is larger than ${maxBodyBytes} bytes` };
}

/** The body-level answer to bytes that are not UTF-8: HTTP 500, like a body that is not JSON. */
export const NOT_UTF8 = { status: 500, body: { error: 'The request body is not valid UTF-8' } } as const;

/** Strict decoding, as the reference's JSON parser: invalid UTF-8 is refused, not replaced. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or `undefined` when it is not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Whether `value` nests objects and arrays more than `maxDepth` levels deep (an object or array is
 * level 1, its object and array members level 2, …). Iterative, so it never overflows the stack
 * itself, and it stops at the first member beyond the limit.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth < 1) return true;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const childDepth = depths.pop()! + 1;
    // Parsed JSON: arrays, and plain objects whose keys are all own and enumerable. No closure
    // here: this runs for every request, and a named closure costs an allocation each time.
    const members = Array.isArray(node) ? node : Object.values(node);
    for (const member of members) {
      if (typeof member !== 'object' || member === null) continue;
      if (childDepth > maxDepth) return true;
      pending.push(member);
      depths.push(childDepth);
    }
  }
  return false;
}
