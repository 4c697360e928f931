/**
 * What docs/rpc.md says the answer to one request must be, worked out from the documented order of
 * checks: `mmrpc` version → nesting → envelope → password → method lookup → params. Whether params
 * fit is judged on the request as sent, by `fits` (JSON Schema rules), not by the service.
 */
import type { TSchema } from '@sinclair/typebox';
import { MAX_BODY_DEPTH, depthOf } from './deepNesting.ts';
import { fits } from './schemaValues.ts';

/** A method as the fuzzer sees it. */
export interface MethodSpec {
  readonly name: string;
  readonly version: 'v2' | 'legacy';
  readonly schema: TSchema;
}

/** What the answer to one request (a batch element or the whole body) must be. */
export interface Expected {
  readonly label: string;
  readonly form: 'legacy' | 'v2';
  /** The `id` a v2 answer echoes. */
  readonly id: number | null;
  /** v2 error types allowed; absent: any answer but `InternalError`. */
  readonly errorTypes?: readonly string[];
  /** A legacy error must match this. */
  readonly legacyError?: RegExp;
  /** The one `InternalError` the docs give this method, if any. */
  readonly internalError?: RegExp;
  readonly mustFail: boolean;
}

const V2_KEYS = new Set(['mmrpc', 'userpass', 'method', 'params', 'id']);
const AUTH_FAILURE = /^Userpass is (not set!|invalid!)/;
const PARSE_FAILURE = /^Error parsing request: |already/i;
/** The v2 id an answer echoes: a non-negative safe integer, else `null`. */
const echoedId = (id: unknown) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null);

export interface Facts {
  readonly label: string;
  /** 1 for the body, 2 for a batch element. */
  readonly level: number;
  readonly methods: readonly MethodSpec[];
  readonly password: string;
}

const LEGACY_ENVELOPE = new Set(['userpass', 'method', 'mmrpc']);

/** The documented order of checks, applied to one request object as sent. */
export function expectation(req: Record<string, unknown>, f: Facts): Expected {
  const id = echoedId(req.id);
  const v2 = (types: readonly string[]): Expected => ({ label: f.label, form: 'v2', id, errorTypes: types, mustFail: true });
  const legacy = (error: RegExp): Expected => ({ label: f.label, form: 'legacy', id: null, legacyError: error, mustFail: true });
  const spec = (version: string, name: unknown) => f.methods.find((m) => m.version === version && m.name === name);
  const hasMmrpc = req.mmrpc !== undefined && req.mmrpc !== null;
  if (hasMmrpc && req.mmrpc !== '2.0') return v2(['InvalidMmRpcVersion']);
  const named = !hasMmrpc && typeof req.method === 'string';
  const legacySpec = named ? spec('legacy', req.method) : undefined;
  if (depthOf(req) + f.level - 1 > MAX_BODY_DEPTH) return legacySpec !== undefined ? legacy(new RegExp(`deeper than ${MAX_BODY_DEPTH} levels`)) : v2(['InvalidRequest']);
  const authFailure = req.userpass === f.password ? undefined : typeof req.userpass === 'string' ? 'UserpassIsInvalid' : 'UserpassIsNotSet';
  if (named && authFailure !== undefined) return legacy(AUTH_FAILURE);
  if (legacySpec !== undefined) {
    const flat = Object.fromEntries(Object.entries(req).filter(([k]) => !LEGACY_ENVELOPE.has(k)));
    return fits(legacySpec.schema, flat) ? { label: f.label, form: 'legacy', id: null, mustFail: false } : legacy(PARSE_FAILURE);
  }
  const envelopeOk =
    Object.keys(req).every((k) => V2_KEYS.has(k)) &&
    typeof req.method === 'string' &&
    (req.userpass === undefined || req.userpass === null || typeof req.userpass === 'string') &&
    (req.id === undefined || req.id === null || (typeof req.id === 'number' && Number.isInteger(req.id) && req.id >= 0));
  if (!envelopeOk) return v2(['InvalidRequest']);
  if (authFailure !== undefined) return v2([authFailure]);
  const v2Spec = spec('v2', req.method);
  if (v2Spec === undefined) return v2(['NoSuchMethod']);
  // Absent or null params count as {} (docs/rpc.md).
  if (!fits(v2Spec.schema, req.params ?? {})) return v2(['InvalidRequest', 'PlatformIsAlreadyActivated']);
  // docs/compatibility.md §8: a PIN for a task that awaits none is an InternalError, as in the reference (every task kind).
  const internalError = v2Spec.name.endsWith('::user_action') ? /is not waiting for a PIN$/ : undefined;
  return { label: f.label, form: 'v2', id, mustFail: false, ...(internalError === undefined ? {} : { internalError }) };
}
