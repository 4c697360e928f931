/**
 * The JSON-RPC dispatcher (docs/compatibility.md §1–§4): body parsing, batches, v2/legacy routing, auth,
 * method lookup, params validation and error envelopes. Transport-free: the HTTP server (and any
 * other transport) hands it the raw body and the caller.
 *
 * Order for one request, as in the reference:
 *  - not an object → v2 `InvalidRequest`;
 *  - `mmrpc` present (not null): not "2.0" → `InvalidMmRpcVersion` (before auth);
 *  - nested deeper than `maxDepth` → `InvalidRequest` in the request's own form, told from its
 *    top-level keys alone (before auth and before any schema check, which would recurse);
 *  - `mmrpc` "2.0" → v2 path;
 *  - no `mmrpc`: `method` not a string → v2 path (fails the envelope, no auth); else auth with
 *    legacy-form errors, then a legacy method answers in legacy form and any other name continues
 *    on the v2 path as if `mmrpc` were "2.0" (so an unknown name is a v2 `NoSuchMethod`);
 *  - v2 path: envelope (unknown top-level key → `InvalidRequest`) → auth → lookup
 *    (`NoSuchMethod`) → params (`InvalidRequest` naming the field) → handler.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import { MMRPC_VERSION, V2RequestSchema, type ResponseId } from '../spec/envelope.ts';
import { compile } from '../spec/validate.ts';
import type { AuthGuard } from './auth.ts';
import { errorOrigin, responseId } from '../spec/render/envelope.ts';
import {
  INTERNAL_ERROR_MESSAGE,
  describeProblem,
  invalidRequest,
  invokeLegacy,
  invokeV2,
  legacyFailure,
  logInternal,
  v2Failure,
  type DispatchResult,
  type MaybeAsync,
  type InvokeContext,
} from './invoke.ts';
import { parseJsonBody } from './json.ts';
import { batchTooLarge, DEFAULT_MAX_BATCH, DEFAULT_MAX_DEPTH, nestsDeeperThan } from './limits.ts';
import { consoleLog, type Log } from '../kernel/log.ts';
import { RpcVersion, type MethodDef, type MethodTable, type RpcCaller } from './methods.ts';

export type { DispatchResult } from './invoke.ts';

export interface DispatcherOptions {
  /** Methods by name; each answers in its own `version`'s envelope. */
  readonly methods: MethodTable;
  /**
   * Optional legacy methods whose name is also a v2 method in `methods` (e.g. `get_enabled_coins`,
   * which exists in both forms). Every entry must have `version: "legacy"`.
   */
  readonly legacyMethods?: MethodTable;
  readonly auth: AuthGuard;
  /** Defaults to JSON lines on stderr. Never receives a body, `userpass` or params. */
  readonly log?: Log;
  /**
   * Deepest nesting of a body (see {@link DEFAULT_MAX_DEPTH}); a batch element may nest one level
   * less, the batch's array being the first.
   * @default 127
   */
  readonly maxDepth?: number;
  /**
   * Most requests in one batch (see {@link DEFAULT_MAX_BATCH}); a larger batch is answered 413 as a whole.
   * @default 1000
   */
  readonly maxBatch?: number;
  /**
   * Hears every request answered (each element of a batch on its own): its `method` as sent (when a
   * string) and the HTTP status of its answer. For metrics; it must not throw.
   */
  readonly onAnswered?: (method: string | undefined, status: number) => void;
}

export interface Dispatcher {
  /**
   * Answers one HTTP body (single request or batch). Never throws or rejects; answers at once when
   * every handler involved is synchronous (e.g. status polls), else with a Promise.
   */
  handle(rawBody: string, caller: RpcCaller): MaybeAsync<DispatchResult>;
}

type JsonObject = Record<string, unknown>;

const v2Envelope = compile(V2RequestSchema);
const LEGACY_ENVELOPE_KEYS = new Set(['userpass', 'method', 'mmrpc']);

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The table's own methods of one version, by name: one lookup per request (the tables are built
 * once, before the dispatcher).
 */
function byName(table: MethodTable | undefined, version: RpcVersion): Map<string, MethodDef> {
  return new Map(Object.entries(table ?? {}).filter(([, def]) => def.version === version));
}

/** Printable `mmrpc` value for the error message; only short version-like strings are echoed. */
function describeVersion(v: unknown): string {
  return typeof v === 'string' && /^[0-9.]{1,8}$/.test(v) ? `unknown variant \`${v}\`` : `invalid ${typeof v} value`;
}

/** Tells `answered` about one answered request and passes the answer on. */
function reportAnswered(answered: (method: string | undefined, status: number) => void, method: string | undefined, done: DispatchResult): DispatchResult {
  answered(method, done.status);
  return done;
}

/**
 * Creates the dispatcher over a method table and an {@link AuthGuard}.
 * @throws TypeError when `legacyMethods` holds a non-legacy method.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { methods, legacyMethods, auth } = options;
  const log = options.log ?? consoleLog;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  for (const [name, def] of Object.entries(legacyMethods ?? {})) {
    if (def.version !== RpcVersion.Legacy) throw new TypeError(`legacyMethods.${name} is not a legacy method`);
  }

  const v2ByName = byName(methods, RpcVersion.V2);
  // A name in `legacyMethods` wins over the same name in `methods`.
  const legacyByName = new Map([...byName(methods, RpcVersion.Legacy), ...byName(legacyMethods, RpcVersion.Legacy)]);
  const v2Method = (name: string): MethodDef | undefined => v2ByName.get(name);
  const legacyMethod = (name: string): MethodDef | undefined => legacyByName.get(name);
  const context = (name: string, caller: RpcCaller, request: JsonObject): InvokeContext => ({
    name,
    caller,
    auth,
    log,
    request,
  });
  const refused = (err: ActivationError, caller: RpcCaller): ActivationError => {
    log.warn('rpc auth refused', { clientId: caller.clientId, errorType: err.errorType });
    return err;
  };

  function routeV2(req: JsonObject, caller: RpcCaller, id: ResponseId, authenticated: boolean): MaybeAsync<DispatchResult> {
    if (!v2Envelope.check(req)) {
      const problem = v2Envelope.firstProblem(req) ?? { field: '(root)', message: 'invalid request' };
      return v2Failure(invalidRequest(describeProblem(problem)), id, errorOrigin('dispatcher', 'envelope'));
    }
    if (!authenticated) {
      const verdict = auth.check(req.userpass, caller);
      if (!verdict.ok) return v2Failure(refused(verdict.error, caller), id, errorOrigin('auth', verdict.error.errorType));
    }
    const def = v2Method(req.method);
    if (def === undefined) {
      return v2Failure(new ActivationError(ErrorType.NoSuchMethod, 'No such method'), id, errorOrigin('dispatcher', 'lookup'));
    }
    return invokeV2(def, req.params, id, context(req.method, caller, req));
  }

  /** Whether `req` is answered in the legacy form: no `mmrpc` and a legacy method's name (top-level keys only). */
  const isLegacyForm = (req: JsonObject): boolean =>
    (req.mmrpc === undefined || req.mmrpc === null) && typeof req.method === 'string' && legacyMethod(req.method) !== undefined;

  function route(req: unknown, caller: RpcCaller, depthBudget: number): MaybeAsync<DispatchResult> {
    if (!isObject(req)) {
      return v2Failure(invalidRequest('(root): Expected object'), null, errorOrigin('dispatcher', 'envelope'));
    }
    const id = responseId(req.id);
    const v2 = req.mmrpc !== undefined && req.mmrpc !== null;
    if (v2 && req.mmrpc !== MMRPC_VERSION) {
      const detail = `${describeVersion(req.mmrpc)}, expected \`${MMRPC_VERSION}\``;
      const err = new ActivationError(ErrorType.InvalidMmRpcVersion, `Error parsing mmrpc version: ${detail}`, detail);
      return v2Failure(err, id, errorOrigin('dispatcher', 'version'));
    }
    if (nestsDeeperThan(req, depthBudget)) {
      const err = invalidRequest(`(root): the body nests objects and arrays deeper than ${maxDepth} levels`);
      return isLegacyForm(req) ? legacyFailure(err) : v2Failure(err, id, errorOrigin('dispatcher', 'depth'));
    }
    if (v2) return routeV2(req, caller, id, false);
    const asV2 = { ...req, mmrpc: MMRPC_VERSION };
    if (typeof req.method !== 'string') return routeV2(asV2, caller, id, false);
    const verdict = auth.check(req.userpass, caller);
    if (!verdict.ok) return legacyFailure(refused(verdict.error, caller));
    const def = legacyMethod(req.method);
    if (def === undefined) return routeV2(asV2, caller, id, true);
    // fromEntries defines keys (a `__proto__` key stays a plain field, never the prototype).
    const flat: JsonObject = Object.fromEntries(Object.entries(req).filter(([k]) => !LEGACY_ENVELOPE_KEYS.has(k)));
    return invokeLegacy(def, flat, context(req.method, caller, req));
  }

  /**
   * An unexpected failure while routing `req`: logged (redacted), answered as a generic
   * `InternalError` in the request's own form.
   */
  function internalFailure(e: unknown, req: unknown, caller: RpcCaller): DispatchResult {
    const request = isObject(req) ? req : {};
    const name = typeof request.method === 'string' ? request.method.slice(0, 100) : '(unknown)';
    logInternal(e, context(name, caller, request));
    const err = new ActivationError(ErrorType.InternalError, INTERNAL_ERROR_MESSAGE);
    return isLegacyForm(request) ? legacyFailure(err) : v2Failure(err, responseId(request.id), errorOrigin('dispatcher', 'internal'));
  }

  /** One element: never rejects; an unexpected failure becomes a generic `InternalError`. */
  function handleOne(req: unknown, caller: RpcCaller, depthBudget: number): MaybeAsync<DispatchResult> {
    const answered = options.onAnswered;
    const answer = answerOne(req, caller, depthBudget);
    if (answered === undefined) return answer;
    const method = isObject(req) && typeof req.method === 'string' ? req.method : undefined;
    // No named closure on the synchronous path (status polls): the runtime gives each one a name
    // with a property definition, which costs more than the call itself.
    if (answer instanceof Promise) return answer.then((done) => reportAnswered(answered, method, done));
    return reportAnswered(answered, method, answer);
  }

  function answerOne(req: unknown, caller: RpcCaller, depthBudget: number): MaybeAsync<DispatchResult> {
    try {
      const answer = route(req, caller, depthBudget);
      return answer instanceof Promise ? answer.catch((e: unknown) => internalFailure(e, req, caller)) : answer;
    } catch (e) {
      return internalFailure(e, req, caller);
    }
  }

  return {
    handle(rawBody, caller) {
      const parsed = parseJsonBody(rawBody);
      if (!parsed.ok) {
        options.onAnswered?.(undefined, 500);
        return { status: 500, body: { error: parsed.message } };
      }
      if (Array.isArray(parsed.value)) {
        if (parsed.value.length > maxBatch) {
          options.onAnswered?.(undefined, 413);
          return { status: 413, body: batchTooLarge(maxBatch, parsed.value.length) };
        }
        return Promise.all(parsed.value.map((el: unknown) => handleOne(el, caller, maxDepth - 1))).then((answers) => ({
          status: 200,
          body: answers.map((a) => a.body),
        }));
      }
      return handleOne(parsed.value, caller, maxDepth);
    },
  };
}
