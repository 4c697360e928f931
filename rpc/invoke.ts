/**
 * Running one resolved method: validate its params with the method's compiled schema, call the
 * handler, and turn whatever it returns or throws into an answer (v2 or legacy form).
 */
import { ActivationError, ErrorType, isActivationError } from '../spec/errors.ts';
import type { ResponseId } from '../spec/envelope.ts';
import type { SchemaProblem } from '../spec/validate.ts';
import type { AuthGuard } from './auth.ts';
import { errorOrigin, renderLegacyError, renderV2Error, renderV2Success, renderV2SuccessText, type ErrorOrigin } from '../spec/render/envelope.ts';
import { RenderedJson } from './json.ts';
import type { Log } from '../kernel/log.ts';
import type { MethodDef, RpcCaller } from './methods.ts';

/** What the dispatcher answers for one request: an HTTP status and a JSON-serialisable body. */
export interface DispatchResult {
  readonly status: number;
  readonly body: unknown;
  /** `body` as JSON text, when known already (a {@link RenderedJson} result): exactly `JSON.stringify(body)`. */
  readonly text?: string;
}

/** Shared context of one invocation. */
export interface InvokeContext {
  readonly name: string;
  readonly caller: RpcCaller;
  readonly auth: AuthGuard;
  readonly log: Log;
  /** The raw request, only used to collect strings to redact from log lines. */
  readonly request: Readonly<Record<string, unknown>>;
}

/** The message the client sees for any failure that is not an `ActivationError`. */
export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/** `InvalidRequest` in the reference's shape: message `Error parsing request: <detail>`, data = detail. */
export function invalidRequest(detail: string): ActivationError {
  return new ActivationError(ErrorType.InvalidRequest, `Error parsing request: ${detail}`, detail);
}

/** `field: message`, with the field prefixed (`params.nodes[0].url: Expected string`). */
export function describeProblem(problem: SchemaProblem, prefix?: string): string {
  const field =
    prefix === undefined ? problem.field : problem.field === '(root)' ? prefix : `${prefix}.${problem.field}`;
  return `${field}: ${problem.message}`;
}

/** A v2 error answer with the error's own HTTP status. */
export function v2Failure(err: ActivationError, id: ResponseId, origin: ErrorOrigin): DispatchResult {
  return { status: err.httpStatus, body: renderV2Error(err, id, origin) };
}

/** A legacy error answer: always HTTP 500 (docs/compatibility.md §3). */
export function legacyFailure(err: ActivationError): DispatchResult {
  return { status: 500, body: renderLegacyError(err) };
}

/** An answer now, or later: synchronous handlers answer without allocating promises. */
export type MaybeAsync<T> = T | Promise<T>;

/** How an invocation answers: v2 (with the request's id) or legacy. */
type AnswerForm = { readonly v2: true; readonly id: ResponseId } | { readonly v2: false };
const LEGACY_FORM: AnswerForm = { v2: false };

function succeeded(value: unknown, form: AnswerForm): DispatchResult {
  if (value instanceof RenderedJson) {
    if (form.v2) return { status: 200, body: renderV2Success(value.value, form.id), text: renderV2SuccessText(value.text, form.id) };
    return { status: 200, body: value.value, text: value.text };
  }
  if (form.v2) return { status: 200, body: renderV2Success(value, form.id) };
  return { status: 200, body: value === undefined ? null : value };
}

function failed(e: unknown, form: AnswerForm, ctx: InvokeContext): DispatchResult {
  const err = handlerError(e, ctx);
  return form.v2 ? v2Failure(err, form.id, errorOrigin('handler', ctx.name)) : legacyFailure(err);
}

/**
 * Calls the handler and maps its result (or what it throws or rejects with) to an answer.
 * Stays synchronous, and allocates no closure, when the handler returns a plain value: status
 * polls are the hot path.
 */
function settle(def: MethodDef, params: unknown, form: AnswerForm, ctx: InvokeContext): MaybeAsync<DispatchResult> {
  let out: unknown;
  try {
    out = def.handle(params, ctx.caller);
  } catch (e) {
    return failed(e, form, ctx);
  }
  if (!(out instanceof Promise)) return succeeded(out, form);
  return out.then(
    (value: unknown) => succeeded(value, form),
    (e: unknown) => failed(e, form, ctx),
  );
}

/** Runs a v2 method; `params` absent or `null` is validated as `{}`. */
export function invokeV2(def: MethodDef, params: unknown, id: ResponseId, ctx: InvokeContext): MaybeAsync<DispatchResult> {
  const refused = admissionError(def, params ?? {}, ctx);
  if (refused !== undefined) return v2Failure(refused, id, errorOrigin('handler', ctx.name));
  const decoded = def.params.decode(params ?? {});
  if (!decoded.ok) {
    return v2Failure(invalidRequest(describeProblem(decoded.problem, 'params')), id, errorOrigin('dispatcher', 'params'));
  }
  return settle(def, decoded.value, { v2: true, id }, ctx);
}

/** Runs a legacy method on the flat body (without `userpass`, `method`, `mmrpc`). */
export function invokeLegacy(def: MethodDef, flat: Record<string, unknown>, ctx: InvokeContext): MaybeAsync<DispatchResult> {
  const refused = admissionError(def, flat, ctx);
  if (refused !== undefined) return legacyFailure(refused);
  const decoded = def.params.decode(flat);
  if (!decoded.ok) return legacyFailure(invalidRequest(describeProblem(decoded.problem)));
  return settle(def, decoded.value, LEGACY_FORM, ctx);
}

/** What the method's `admit` refuses the raw params with, if anything. */
function admissionError(def: MethodDef, raw: unknown, ctx: InvokeContext): ActivationError | undefined {
  try {
    def.admit?.(raw);
    return undefined;
  } catch (e) {
    return handlerError(e, ctx);
  }
}

/** Maps a thrown value to the error the client sees; anything but `ActivationError` becomes a generic `InternalError`. */
function handlerError(e: unknown, ctx: InvokeContext): ActivationError {
  if (isActivationError(e)) {
    ctx.log.warn('rpc method failed', { method: ctx.name, clientId: ctx.caller.clientId, errorType: e.errorType });
    return e;
  }
  logInternal(e, ctx);
  return new ActivationError(ErrorType.InternalError, INTERNAL_ERROR_MESSAGE);
}

/** Logs an unexpected exception with the password, `userpass` and secret-looking params redacted. */
export function logInternal(e: unknown, ctx: InvokeContext): void {
  const secrets = [ctx.request.userpass, ...secretStrings(ctx.request)];
  const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
  ctx.log.error('rpc internal error', {
    method: ctx.name,
    clientId: ctx.caller.clientId,
    error: ctx.auth.redact(text, ...secrets),
  });
}

const SECRET_KEY = /pass|pin|secret|seed|mnemonic|priv|wif/i;

/** String values found under secret-looking keys anywhere in `value` (bounded depth). */
function secretStrings(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && SECRET_KEY.test(k)) out.push(v);
    else secretStrings(v, depth + 1, out);
  }
  return out;
}
