import type { Static, TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

/** One problem found in a value: the dotted field path and what was wrong there. */
export interface SchemaProblem {
  readonly field: string;
  readonly message: string;
}

/** A compiled schema: `check` is the fast path, `firstProblem` names the offending field. */
export interface CompiledSchema<T extends TSchema> {
  readonly schema: T;
  check(value: unknown): value is Static<T>;
  firstProblem(value: unknown): SchemaProblem | undefined;
  /**
   * The value with schema defaults filled in, or the first problem. Defaults are written into
   * `value` itself (callers pass JSON they just parsed and own); a value that already fits is
   * returned as it is, without copying (the hot path of every RPC request).
   */
  decode(value: unknown): { ok: true; value: Static<T> } | { ok: false; problem: SchemaProblem };
}

/** Turns a JSON pointer (`/params/nodes/0/url`) into a readable field path (`params.nodes[0].url`). */
export function fieldPath(pointer: string): string {
  if (pointer === '') return '(root)';
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

/** Compiles a TypeBox schema once; use at module level so every request reuses the same code. */
export function compile<T extends TSchema>(schema: T): CompiledSchema<T> {
  const compiled = TypeCompiler.Compile(schema);
  const firstProblem = (value: unknown): SchemaProblem | undefined => {
    const first = compiled.Errors(value).First();
    if (first === undefined) return undefined;
    const error = deepestVariantError(first);
    return { field: fieldPath(error.path), message: error.message };
  };
  return {
    schema,
    check: (value): value is Static<T> => compiled.Check(value),
    firstProblem,
    decode(value) {
      if (compiled.Check(value)) return { ok: true, value };
      const withDefaults = Value.Default(schema, value);
      if (compiled.Check(withDefaults)) return { ok: true, value: withDefaults as Static<T> };
      return { ok: false, problem: firstProblem(withDefaults) ?? { field: '(root)', message: 'invalid value' } };
    },
  };
}

/**
 * For a value no variant of a union accepts, the error of the variant that got furthest into it
 * (`utxo_merge_params.merge_at: Expected integer` rather than `utxo_merge_params: Expected union
 * value`); when none got past the value itself, what the variants expected (`Expected string or null`).
 */
function deepestVariantError(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  // Each variant's iterator yields once: take its first error here and only here.
  const firsts = error.errors.map((variant) => variant.First()).filter((e) => e !== undefined).map(deepestVariantError);
  const deeper = firsts.filter((e) => e.path.length > error.path.length).sort((a, b) => b.path.length - a.path.length)[0];
  if (deeper !== undefined) return deeper;
  const expected = new Set(firsts.map((e) => e.message.replace(/^Expected /, '')));
  return { ...error, message: `Expected ${[...expected].join(' or ')}` };
}
