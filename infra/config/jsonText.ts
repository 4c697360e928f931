/**
 * JSON parsing whose failure never quotes the text. V8's own messages embed a snippet of the
 * input (`Unexpected token 'S', ..."assword": S3cr3t}" is not valid JSON`), which would leak a
 * secret from MM2.json; on failure this module re-scans the text to find where and why instead.
 */

/** Parsed value, or where the text stops being JSON (1-based line and column, 0-based position). */
export type JsonTextResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string; readonly position: number; readonly line: number; readonly column: number };

class SyntaxStop {
  constructor(readonly position: number, readonly reason: string) {}
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** Finds the first syntax error of `text` (which `JSON.parse` rejected). Messages quote no input. */
function locate(text: string): SyntaxStop {
  let i = 0;
  const stop = (reason: string): never => {
    throw new SyntaxStop(i, i >= text.length ? 'unexpected end of input' : reason);
  };
  const ws = () => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') return void i++;
      if (c === '\\') {
        const e = text[i + 1] ?? '';
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (ESCAPES.has(e)) i += 2;
        else {
          i++;
          stop('invalid escape sequence in string');
        }
      } else if (c.charCodeAt(0) < 0x20) stop('unescaped control character in string');
      else i++;
    }
    throw new SyntaxStop(i, 'unterminated string');
  };
  const container = (close: '}' | ']') => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      ws();
      if (close === '}') {
        if (text[i] !== '"') stop('expected a double-quoted property name');
        string();
        ws();
        if (text[i] !== ':') stop("expected ':' after property name");
        i++;
      }
      value();
      ws();
      if (text[i] === ',') i++;
      else if (text[i] === close) return void i++;
      else stop(`expected ',' or '${close}' after ${close === '}' ? 'property value' : 'array element'}`);
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === undefined) return stop('unexpected end of input');
    if (c === '{' || c === '[') return container(c === '{' ? '}' : ']');
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    if (c === '-') {
      i++;
      stop('no digits after minus sign');
    }
    for (const literal of ['true', 'false', 'null']) if (text.startsWith(literal, i)) return void (i += literal.length);
    stop('unexpected character');
  };
  try {
    value();
    ws();
    if (i < text.length) stop('unexpected content after the JSON value');
    return new SyntaxStop(0, 'invalid JSON');
  } catch (e) {
    if (e instanceof SyntaxStop) return e;
    return new SyntaxStop(0, 'invalid JSON (too deeply nested to locate the error)');
  }
}

/** Parses JSON text (a leading byte-order mark is ignored). */
export function parseJsonText(text: string): JsonTextResult {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    const { position, reason } = locate(body);
    const before = body.slice(0, position);
    const line = before.split('\n').length;
    const column = position - (before.lastIndexOf('\n') + 1) + 1;
    return { ok: false, reason, position, line, column };
  }
}

/** `<reason> at line L, column C (position P)`, for an error message. */
export function describeJsonFailure(failure: Extract<JsonTextResult, { ok: false }>): string {
  return `${failure.reason} at line ${failure.line}, column ${failure.column} (position ${failure.position})`;
}
