/** The error shapes java-tron's HTTP API answers with (always HTTP 200). */

/**
 * A request java-tron would reject with `{"Error": "<class> : <message>"}` (e.g. a malformed
 * address). Thrown by endpoint handlers; the server turns it into that body.
 */
export class TronRequestError extends Error {
  override name = 'TronRequestError';
}

/** java-tron's body for a rejected request. */
export function tronErrorBody(error: unknown): { Error: string } {
  const message = error instanceof Error ? error.message : String(error);
  return { Error: error instanceof TronRequestError ? `class java.lang.IllegalArgumentException : ${message}` : message };
}
