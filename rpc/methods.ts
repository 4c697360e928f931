import type { Static, TSchema } from '@sinclair/typebox';
import type { CompiledSchema } from '../spec/validate.ts';

/** Which envelope a method answers in (docs/compatibility.md §1). */
export const RpcVersion = { V2: 'v2', Legacy: 'legacy' } as const;
export type RpcVersion = (typeof RpcVersion)[keyof typeof RpcVersion];

/** Who is calling: used for the wrong-password lockout (HTTP: remote IP; NATS: connection). */
export interface RpcCaller {
  readonly clientId: string;
}

/**
 * One RPC method. For a v2 method `params` validates the `params` object and `handle` returns the
 * `result`. For a legacy method `params` validates the flat body (without `userpass`/`method`) and
 * `handle` returns the whole flat response object.
 */
export interface MethodDef<T extends TSchema = TSchema> {
  readonly version: RpcVersion;
  readonly params: CompiledSchema<T>;
  /**
   * Runs on the raw params (the flat body for legacy) before `params` checks them: for a refusal
   * that must come before every other check of the request, such as "already activated"
   * (docs/compatibility.md §12). Throws an `ActivationError`; must not trust the value's shape.
   */
  admit?(raw: unknown): void;
  /** May answer synchronously (a plain value) or with a Promise. */
  handle(params: Static<T>, caller: RpcCaller): unknown;
}

/** The method table the dispatcher routes by name. */
export type MethodTable = Readonly<Record<string, MethodDef<any>>>;

/** Helper that keeps the schema and handler types tied together. */
export function defineMethod<T extends TSchema>(def: MethodDef<T>): MethodDef<T> {
  return def;
}
