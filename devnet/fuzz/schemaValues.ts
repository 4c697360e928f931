/**
 * Values drawn from the TypeBox schemas of the RPC methods: a valid instance, and the places in it
 * where a mutation can go, each with the schema that governs it. The generator knows JSON Schema's
 * rules (types, `minLength`, `pattern`, `minimum`, literals, required keys, defaults) and nothing
 * of the service: whether a mutation breaks the schema is decided here, independently.
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import type { SeededRandom } from '../testing/seededRandom.ts';
import { deepPlaceholder, placeholderLevels } from './deepNesting.ts';

/** Strings by field name (tickers, URLs): the caller's pools, so nothing points off the machine. */
export type StringFor = (field: string, schema: TSchema) => string;

/** One place in an instance: where it is, what governs it, and how deep it sits in the body. */
export interface Site {
  /** Keys from the instance's root (`[]` is the root itself). */
  readonly path: readonly (string | number)[];
  readonly schema: TSchema;
  /** The field name (an array item has its array's name). */
  readonly field: string;
  /** Nesting level of a container placed here, the instance's root being level 1. */
  readonly level: number;
  /** A property the schema requires and does not fill by default. */
  readonly required: boolean;
}

/** JSON types a schema accepts; `any` for `Unknown`/`Any`. */
export function acceptedTypes(schema: TSchema): Set<string> | 'any' {
  switch (schema[Kind]) {
    case 'Unknown':
    case 'Any':
      return 'any';
    case 'Union': {
      const all = new Set<string>();
      for (const member of schema.anyOf as TSchema[]) {
        const types = acceptedTypes(member);
        if (types === 'any') return 'any';
        for (const t of types) all.add(t);
      }
      return all;
    }
    case 'Literal':
      return new Set([typeof schema.const === 'number' ? (Number.isInteger(schema.const) ? 'integer' : 'number') : typeof schema.const]);
    case 'Integer':
      return new Set(['integer']);
    case 'Number':
      return new Set(['integer', 'number']);
    case 'Record':
      return new Set(['object']);
    default:
      return new Set([String(schema.type ?? 'unknown')]);
  }
}

/** The JSON type of a value, telling integers from other numbers (a deep-nesting placeholder is an array). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (placeholderLevels(value) !== undefined) return 'array';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether `value` fits `schema`, by the JSON Schema rules the request schemas use. */
export function fits(schema: TSchema, value: unknown): boolean {
  const kind = schema[Kind];
  if (kind === 'Unknown' || kind === 'Any') return true;
  if (kind === 'Union') return (schema.anyOf as TSchema[]).some((member) => fits(member, value));
  if (kind === 'Literal') return value === schema.const;
  const types = acceptedTypes(schema) as Set<string>;
  const type = jsonType(value);
  if (!types.has(type) && !(type === 'integer' && types.has('number'))) return false;
  if (typeof value === 'string' && type === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return false;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return false;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return false;
    if (schema.maximum !== undefined && value > schema.maximum) return false;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false;
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false;
  }
  if (kind === 'Object' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, TSchema>;
    for (const [key, sub] of Object.entries(properties)) {
      if (!Object.hasOwn(record, key)) {
        if (isRequired(schema, key)) return false;
      } else if (!fits(sub, record[key])) return false;
    }
    if (schema.additionalProperties === false && Object.keys(record).some((k) => !Object.hasOwn(properties, k))) return false;
  }
  if (kind === 'Array') {
    const levels = placeholderLevels(value);
    const items = levels === undefined ? (value as unknown[]) : [levels > 1 ? deepPlaceholder(levels - 1) : 0];
    return items.every((item) => fits(schema.items as TSchema, item));
  }
  return true;
}

/** Required and not filled by a default. */
function isRequired(objectSchema: TSchema, key: string): boolean {
  const sub = (objectSchema.properties as Record<string, TSchema>)[key];
  return (objectSchema.required as string[] | undefined)?.includes(key) === true && sub?.default === undefined;
}

/** A valid instance of `schema`; each optional property is present with probability `optional`. */
export function validInstance(schema: TSchema, field: string, rand: SeededRandom, stringFor: StringFor, optional = 0.5): unknown {
  const kind = schema[Kind];
  switch (kind) {
    case 'Object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
        if (isRequired(schema, key) || rand.chance(optional)) out[key] = validInstance(sub, key, rand, stringFor, optional);
      }
      return out;
    }
    case 'Array':
      return Array.from({ length: rand.int(Math.max(schema.minItems ?? 0, optional === 1 ? 1 : 0), Math.max(schema.minItems ?? 0, 2)) }, () =>
        validInstance(schema.items as TSchema, field, rand, stringFor, optional),
      );
    case 'Union':
      return validInstance(rand.pick(schema.anyOf as TSchema[]), field, rand, stringFor, optional);
    case 'Literal':
      return schema.const;
    case 'String': {
      if (schema.pattern === '^[1-9]+$') return String(rand.int(1, 99_999)).replace(/0/g, '5');
      const pooled = stringFor(field, schema);
      return fits(schema, pooled) ? pooled : 'x'.repeat(schema.minLength ?? 1);
    }
    case 'Integer':
    case 'Number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum === undefined ? 0 : Math.floor(schema.exclusiveMinimum) + 1);
      const max = schema.maximum ?? (schema.exclusiveMaximum === undefined ? min + 10 : Math.ceil(schema.exclusiveMaximum) - 1);
      return rand.int(min, Math.min(max, min + 10));
    }
    case 'Boolean':
      return rand.chance(0.5);
    case 'Null':
      return null;
    case 'Record':
      return {};
    default:
      return rand.pick([1, 'x', null, [], {}]);
  }
}

/** Every place in `value` (an instance of `schema`) where a mutation may go. */
export function sitesOf(schema: TSchema, value: unknown, level = 1, path: (string | number)[] = [], field = ''): Site[] {
  const sites: Site[] = [{ path, schema, field, level, required: false }];
  const kind = schema[Kind];
  if (kind === 'Union') {
    const member = (schema.anyOf as TSchema[]).find((m) => fits(m, value));
    return member === undefined ? sites : [...sites, ...sitesOf(member, value, level, path, field).slice(1)];
  }
  if (kind === 'Object' && typeof value === 'object' && value !== null) {
    for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
      const present = Object.hasOwn(value, key);
      const inner = present ? sitesOf(sub, (value as Record<string, unknown>)[key], level + 1, [...path, key], key) : [];
      sites.push(present ? { ...inner[0]!, required: isRequired(schema, key) } : { path: [...path, key], schema: sub, field: key, level: level + 1, required: false });
      sites.push(...inner.slice(1));
    }
  }
  if (kind === 'Array' && Array.isArray(value)) {
    value.forEach((item, i) => sites.push(...sitesOf(schema.items as TSchema, item, level + 1, [...path, i], field)));
  }
  return sites;
}
