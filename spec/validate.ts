import type { Static, TSchema } from '@sinclair/typebox';
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
    return first === undefined ? undefined : { field: fieldPath(first.path), message: first.message };
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
