/**
 * Parsing a request body without echoing it: V8's `JSON.parse` messages can quote the start of the
 * input (`Unexpected token 'h', "hunter2"... is not valid JSON`), which may be the password.
 * Serialising answers, once per answer or once per value (see {@link RenderedJson}).
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

/**
 * A handler's result together with its JSON text, for a value answered many times unchanged (a
 * task's status between two of its events): the answer splices the text in instead of serialising
 * the value on every request. The value must not change afterwards.
 */
export class RenderedJson {
  readonly value: unknown;
  readonly text: string;

  /** @throws TypeError when `value` has no JSON text (`undefined`, a function). */
  constructor(value: unknown) {
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) throw new TypeError('RenderedJson: the value has no JSON text');
    this.value = value;
    this.text = text;
  }
}

/** The answer's status and text: the result's own `text` when it carries one, else {@link answerText} of its body. */
export function resultText(result: { readonly status: number; readonly body: unknown; readonly text?: string }, onError: (error: unknown) => void): { status: number; text: string } {
  return result.text !== undefined ? (result as { status: number; text: string }) : answerText(result.status, result.body, onError);
}
