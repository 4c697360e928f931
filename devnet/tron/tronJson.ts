/**
 * JSON in and out of the devnet TRON node. java-tron prints int64 fields as bare JSON numbers (or as
 * strings with `int64_as_string`); bigints are written here as exact digits, never via floats.
 */

/** A request's parameters: the query string merged with the POSTed JSON object (body wins). */
export type TronParams = Readonly<Record<string, unknown>>;

/** JSON text for `value`; `bigint`s become bare digits, or strings when `int64AsString`. */
export function toTronJson(value: unknown, int64AsString = false): string {
  if (typeof value === 'bigint') return int64AsString ? `"${value}"` : value.toString();
  if (Array.isArray(value)) return `[${value.map((v) => toTronJson(v, int64AsString)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toTronJson(v, int64AsString)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Parses the query string and the body into one parameter object. Query values stay strings,
 * except `true`/`false`. Throws with a java-tron-like message when the body is not a JSON object.
 */
export function parseTronParams(search: URLSearchParams, body: string): TronParams {
  const params: Record<string, unknown> = {};
  for (const [key, value] of search) params[key] = value === 'true' ? true : value === 'false' ? false : value;
  if (body.trim() === '') return params;
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('request body must be a JSON object');
  return { ...params, ...(parsed as Record<string, unknown>) };
}

/** `params[key] === true` (java-tron's `visible`, `int64_as_string`, `detail` flags). */
export function flag(params: TronParams, key: string): boolean {
  return params[key] === true;
}

/** Hex text of a UTF-8 string: java-tron prints `bytes` fields such as `result.message` as hex. */
export function utf8Hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
