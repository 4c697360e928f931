/**
 * Wire shapes of the request/response envelopes (spec §2.1, docs/compatibility.md §1–§2). Only `rpc/`
 * builds or reads these; the rest of the service speaks `ActivationError` and plain results.
 */
import { Type, type Static } from '@sinclair/typebox';

/** The only `mmrpc` value the service speaks. */
export const MMRPC_VERSION = '2.0' as const;

/** Top-level keys a v2 request may carry; anything else is `InvalidRequest`. */
export const V2_REQUEST_KEYS = ['mmrpc', 'userpass', 'method', 'params', 'id'] as const;

/** A request id: a non-negative integer. `null` and absent both mean "no id". */
export const RpcIdSchema = Type.Integer({ minimum: 0 });

/** The id echoed in responses. */
export const ResponseIdSchema = Type.Union([RpcIdSchema, Type.Null()]);
export type ResponseId = Static<typeof ResponseIdSchema>;

/**
 * A v2 request. `userpass` is optional here (absent/null is `UserpassIsNotSet`, answered after the
 * envelope is accepted); `params` is any JSON (the method's own schema validates it; absent or null
 * is treated as `{}`).
 */
export const V2RequestSchema = Type.Object(
  {
    mmrpc: Type.Literal(MMRPC_VERSION),
    userpass: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    method: Type.String(),
    params: Type.Optional(Type.Unknown()),
    id: Type.Optional(Type.Union([RpcIdSchema, Type.Null()])),
  },
  { additionalProperties: false },
);
export type V2Request = Static<typeof V2RequestSchema>;

/** A v2 success: `{"mmrpc":"2.0","result":...,"id":...}`. */
export const V2SuccessSchema = Type.Object(
  {
    mmrpc: Type.Literal(MMRPC_VERSION),
    result: Type.Unknown(),
    id: ResponseIdSchema,
  },
  { additionalProperties: false },
);
export type V2Success = Static<typeof V2SuccessSchema>;

/**
 * A v2 error. Key order on the wire is `mmrpc, error, error_path, error_trace, error_type,
 * error_data, id`; `error_data` is absent (not null) for variants that carry nothing.
 */
export const V2ErrorSchema = Type.Object(
  {
    mmrpc: Type.Literal(MMRPC_VERSION),
    error: Type.String(),
    error_path: Type.String(),
    error_trace: Type.String(),
    error_type: Type.String(),
    error_data: Type.Optional(Type.Unknown()),
    id: ResponseIdSchema,
  },
  { additionalProperties: false },
);
export type V2Error = Static<typeof V2ErrorSchema>;

/** The exact key order of a v2 error envelope. */
export const V2_ERROR_KEY_ORDER = [
  'mmrpc',
  'error',
  'error_path',
  'error_trace',
  'error_type',
  'error_data',
  'id',
] as const;

/** A legacy request: flat, `userpass` + `method` + the operation's own fields, no `mmrpc`. */
export const LegacyRequestSchema = Type.Object(
  {
    userpass: Type.Optional(Type.Unknown()),
    method: Type.String(),
  },
  { additionalProperties: true },
);
export type LegacyRequest = Static<typeof LegacyRequestSchema>;

/** A legacy error: `{"error": message}`, plus method-specific extra fields on a few methods. */
export const LegacyErrorSchema = Type.Object({ error: Type.String() }, { additionalProperties: true });
export type LegacyError = Static<typeof LegacyErrorSchema>;

/** `error_data` of `UserpassIsInvalid`: `{"error_type":"NbAttemptsLeft","error_data":<n>}`. */
export const NbAttemptsLeftSchema = Type.Object(
  {
    error_type: Type.Literal('NbAttemptsLeft'),
    error_data: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type NbAttemptsLeft = Static<typeof NbAttemptsLeftSchema>;
