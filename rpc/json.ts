/**
 * Parsing a request body without echoing it: V8's `JSON.parse` messages can quote the start of the
 * input (`Unexpected token 'h', "hunter2"... is not valid JSON`), which may be the password.
 */

/** Result of {@link parseJsonBody}. */
export type JsonParseResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

const AT_POSITION = /^([A-Za-z ',:{}[\]-]{1,80}?) in JSON at position (\d+)/;

/** 1-based line and column of a UTF-16 offset, like the reference's `at line L column C`. */
function lineColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Builds a parse message that names what went wrong and where, but contains no byte of the input.
 */
export function safeJsonErrorMessage(error: unknown, text: string): string {
  const raw = error instanceof Error ? error.message : '';
  const m = AT_POSITION.exec(raw);
  if (m !== null && m[1] !== undefined && m[2] !== undefined) {
    // Older engines write `Unexpected token x in JSON ...`, quoting one input character.
    const what = m[1].startsWith('Unexpected token') ? 'Unexpected token' : m[1];
    const { line, column } = lineColumn(text, Number(m[2]));
    return `${what} at line ${line} column ${column}`;
  }
  if (raw.startsWith('Unexpected end of JSON input')) return 'EOF while parsing a value: unexpected end of JSON input';
  return 'Unexpected token: the request body is not valid JSON';
}

/** Parses `text` as JSON; on failure returns a secret-free message (see {@link safeJsonErrorMessage}). */
export function parseJsonBody(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: safeJsonErrorMessage(e, text) };
  }
}

/**
 * An answer as JSON text; a body that cannot be serialised (a bug) becomes HTTP 500
 * `{"error":"Internal error"}`, so every transport always answers JSON.
 */
export function answerText(status: number, body: unknown, onError: (error: unknown) => void): { status: number; text: string } {
  try {
    return { status, text: JSON.stringify(body) ?? 'null' };
  } catch (error) {
    onError(error);
    return { status: 500, text: JSON.stringify({ error: 'Internal error' }) };
  }
}
