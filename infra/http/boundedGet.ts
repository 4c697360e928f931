/**
 * `GET` of a small JSON API (a gas station, an NFT indexer): the body of a 2xx answer, read up to a
 * size cap, and failure reasons that never carry the URL (its path or query may hold an API key).
 */

/** The body of a 2xx answer to `GET url` (`Accept: application/json`), at most `maxBytes`. */
export async function getBoundedText(
  url: string,
  options: { readonly signal: AbortSignal; readonly maxBytes: number; readonly headers?: Readonly<Record<string, string>> },
): Promise<string> {
  const response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal: options.signal });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > options.maxBytes) throw new Error(`the answer exceeds ${options.maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The reason of a failed request, with the system error code when there is one (never the URL). */
export function describeFailure(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === 'string') return `connection failed (${code})`;
  return error instanceof Error ? error.message : String(error);
}
