/**
 * Renders results and `ActivationError`s into the wire envelopes of docs/compatibility.md §2.
 * Pure functions: no I/O, no logging.
 */
import type { ActivationError } from '../errors.ts';
import { MMRPC_VERSION, type LegacyError, type ResponseId, type V2Error, type V2Success } from '../envelope.ts';

/**
 * Where an error was produced, as shown in `error_path` / `error_trace`. These are short, stable
 * debug strings (module + code), never stack traces, file paths or request data.
 */
export interface ErrorOrigin {
  readonly path: string;
  readonly trace: string;
}

const UNSAFE = /[^A-Za-z0-9_.:-]/g;
const MAX_PART = 64;

function safePart(s: string): string {
  const cleaned = s.replace(UNSAFE, '_').slice(0, MAX_PART);
  return cleaned === '' ? '_' : cleaned;
}

/**
 * Builds an {@link ErrorOrigin}: `error_path` = `rpc.<module>`, `error_trace` = `<module>:<code>]`
 * (the shape of the reference's `file:line]`, with a stable code instead of a line number).
 * Characters outside `[A-Za-z0-9_.:-]` are replaced, and each part is capped at 64 characters.
 */
export function errorOrigin(module: string, code: string): ErrorOrigin {
  const m = safePart(module);
  return { path: `rpc.${m}`, trace: `${m}:${safePart(code)}]` };
}

/** Normalises a response id: a non-negative safe integer is echoed, anything else is `null`. */
export function responseId(id: unknown): ResponseId {
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

/** Renders `{"mmrpc":"2.0","result":...,"id":...}`. An `undefined` result is sent as `null`. */
export function renderV2Success(result: unknown, id: ResponseId): V2Success {
  return { mmrpc: MMRPC_VERSION, result: result === undefined ? null : result, id };
}

const V2_SUCCESS_HEAD = `{"mmrpc":${JSON.stringify(MMRPC_VERSION)},"result":`;

/**
 * The JSON text of {@link renderV2Success} around a result whose JSON text is known already:
 * the same bytes as serialising the envelope, without serialising the result again.
 */
export function renderV2SuccessText(resultText: string, id: ResponseId): string {
  return `${V2_SUCCESS_HEAD}${resultText},"id":${id === null ? 'null' : JSON.stringify(id)}}`;
}

/**
 * Renders a v2 error with keys in exactly the order `mmrpc, error, error_path, error_trace,
 * error_type, error_data, id`; `error_data` is omitted when the error's `data` is `undefined`.
 */
export function renderV2Error(err: ActivationError, id: ResponseId, origin: ErrorOrigin): V2Error {
  const body: Record<string, unknown> = {
    mmrpc: MMRPC_VERSION,
    error: err.message,
    error_path: origin.path,
    error_trace: origin.trace,
    error_type: err.errorType,
  };
  if (err.data !== undefined) body.error_data = err.data;
  body.id = id;
  return body as V2Error;
}

/**
 * Renders a legacy error: `{"error": message, ...legacyFields}`. `error` always comes first and
 * always carries the error's message (a `legacyFields.error` cannot override it).
 */
export function renderLegacyError(err: ActivationError): LegacyError {
  const body: Record<string, unknown> = { error: err.message };
  for (const [k, v] of Object.entries(err.legacyFields ?? {})) {
    if (k !== 'error') body[k] = v;
  }
  return body as LegacyError;
}
