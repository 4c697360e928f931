/**
 * Mutations of a valid instance at one {@link Site}: wrong types, values out of range, missing and
 * extra keys (prototype-pollution keys among them), deep nesting, huge and unusual strings. Whether
 * the result still fits the schema or nests too deep is judged afterwards, on the whole request
 * (`fuzzRequests.ts`). URL fields only ever get values that are no string here, so a mutated URL
 * is refused by its schema and never dialled.
 */
import type { TSchema } from '@sinclair/typebox';
import type { SeededRandom } from '../testing/seededRandom.ts';
import { MAX_BODY_DEPTH, deepPlaceholder } from './deepNesting.ts';
import { acceptedTypes, jsonType, type Site } from './schemaValues.ts';

/** Keys a client should never be able to use to reach an object's prototype. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'] as const;

/** Values put under extra keys: they name real fields, so a key that reached a prototype would show. */
const EXTRA_VALUES: readonly unknown[] = [1, null, 'x', [], { polluted: true }, { ticker: 5, coin: 'ETH', mm2: 1, get_balances: 'no' }];
/** Values for a place that may be a URL field: none is a string, so none is ever dialled. */
const NOT_STRINGS: readonly unknown[] = [1, null, [], { polluted: true }];

/** Strings no client sends, but any may: control characters, a lone surrogate, direction overrides, look-alikes. */
export const ODD_STRINGS: readonly string[] = ['', '\u0000', '\ud800', 'ETH\u200b', '\u202eHTE', 'ＥＴＨ', 'e\u0301th', '😀'.repeat(3), '%s%n%x', "'; --", '<b>x</b>', 'Ethereum\n\tETH'];

const VALUE_OF_TYPE: Readonly<Record<string, readonly unknown[]>> = {
  string: ['x', '', '0', 'true'],
  integer: [7, -1, 0],
  number: [1.5, -0.25],
  boolean: [true, false],
  null: [null],
  array: [[1], [], [{}]],
  object: [{ a: 1 }, {}],
};

const isUrlField = (field: string) => /url/i.test(field);

/** Mutations {@link mutate} chooses from. */
export type MutationKind = 'wrongType' | 'outOfRange' | 'deep' | 'extra' | 'remove' | 'odd' | 'huge';

/**
 * Applies one mutation to `root` in place (`kind`, or one chosen among those that fit `site`);
 * returns the new root and what it did.
 */
export function mutate(root: unknown, site: Site, rand: SeededRandom, kind?: MutationKind): { root: unknown; label: string } {
  const current = valueAt(root, site.path);
  const where = site.path.length === 0 ? '(root)' : site.path.map(String).join('.');
  const kinds = ['wrongType', 'deep', 'extra', ...(site.path.length > 0 ? ['remove'] : [])];
  if (!isUrlField(site.field)) kinds.push('outOfRange', ...(typeof current === 'string' ? ['odd', 'huge'] : []));
  const replace = (value: unknown, what: string) => ({ root: setAt(root, site.path, value), label: `${what} at ${where}` });
  switch (kind ?? rand.pick(kinds)) {
    case 'wrongType': {
      const accepted = acceptedTypes(site.schema);
      const types = Object.keys(VALUE_OF_TYPE).filter((t) => accepted !== 'any' && !accepted.has(t) && !(t === 'integer' && accepted.has('number')));
      const value = types.length === 0 ? [] : rand.pick(VALUE_OF_TYPE[rand.pick(types)]!);
      return replace(value, `${/^[aeiou]/.test(jsonType(value)) ? 'an' : 'a'} ${jsonType(value)}`);
    }
    case 'outOfRange':
      return replace(outOfRange(site.schema, rand), 'a value out of range');
    case 'deep': {
      const fitting = MAX_BODY_DEPTH - site.level + 1; // the deepest that still fits here
      const levels = rand.pick([2, fitting, fitting + 1, 1_000, 20_000, 50_000].filter((n) => n >= 1));
      return replace(deepPlaceholder(levels), `${levels} nested arrays`);
    }
    case 'extra': {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return replace(rand.pick(NOT_STRINGS), 'a value that is no string');
      const key = rand.pick([...PROTOTYPE_KEYS, 'x_extra', '', '😀']);
      Object.defineProperty(current, key, { value: rand.pick(EXTRA_VALUES), enumerable: true, writable: true, configurable: true });
      return { root, label: `an extra key ${JSON.stringify(key)} at ${where}` };
    }
    case 'remove': {
      const parent = valueAt(root, site.path.slice(0, -1)) as Record<string | number, unknown>;
      if (Array.isArray(parent)) parent.splice(site.path.at(-1) as number, 1);
      else delete parent[site.path.at(-1)!];
      return { root, label: `no ${where}` };
    }
    case 'odd':
      return replace(rand.pick(ODD_STRINGS), 'an odd string');
    default:
      return replace(rand.chance(0.5) ? 'A'.repeat(200_000) : '😀'.repeat(50_000), 'a huge string');
  }
}

/** A value of the right type that breaks a bound: below a minimum, a fraction, an unknown literal. */
function outOfRange(schema: TSchema, rand: SeededRandom): unknown {
  const candidates: unknown[] = [];
  if (schema.minLength !== undefined) candidates.push('');
  if (schema.maxLength !== undefined) candidates.push('1'.repeat(schema.maxLength + 1));
  if (schema.pattern !== undefined) candidates.push('0x');
  if (schema.minimum !== undefined) candidates.push(schema.minimum - 1);
  if (schema.maximum !== undefined) candidates.push(schema.maximum + 1);
  if (schema.exclusiveMinimum !== undefined) candidates.push(schema.exclusiveMinimum);
  if (schema.exclusiveMaximum !== undefined) candidates.push(schema.exclusiveMaximum);
  if (schema.type === 'integer') candidates.push(0.5, 2 ** 53 + 2, 1e308);
  candidates.push('NotAValue', -1);
  return rand.pick(candidates);
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], root);
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = valueAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path.at(-1)!] = value;
  return root;
}
