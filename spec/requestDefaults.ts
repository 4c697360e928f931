/**
 * The documented defaults of activation request fields (spec 4.1, 4.6, 4.7, 8), and the one rule
 * for a field given where it has no effect (docs/compatibility.md §17): at its default it is
 * accepted, as the reference accepts it (leaving it out would mean the same); any other value is
 * refused naming the field, since it would otherwise be dropped in silence.
 */
import { isDeepStrictEqual } from 'node:util';

/** Request field defaults: the schemas and the planners read them here. */
export const REQUEST_DEFAULTS = {
  /** spec 4.1, 4.7, 8. */
  gas_station_decimals: 8,
  /** spec 4.1, 4.7. */
  gas_station_policy: { policy: 'MeanAverageFast' },
  /** spec 4.1, 8. */
  get_balances: true,
  /** spec 4.1, 8. */
  tx_history: false,
  /** spec 4.1, 8 (after the coins file's own value). */
  required_confirmations: 3,
  /** spec 4.1. */
  rpc_mode: 'Default',
  /** The reference's gap limit (spec 4.1 names none). */
  gap_limit: 20,
  /** The reference's scan policy (spec 4.1 names none). */
  scan_policy: 'scan_if_new_wallet',
} as const;
export type DefaultedField = keyof typeof REQUEST_DEFAULTS;

/** A field the request gave where it has no effect. */
export interface FieldWithoutEffect {
  /** The field's wire name; its documented default, if any, is read from {@link REQUEST_DEFAULTS}. */
  readonly field: string;
  /** As the request names it, e.g. `params.gas_station_decimals`. */
  readonly path: string;
  /** As given; `undefined` when left out. */
  readonly value: unknown;
  /**
   * Other values that do exactly what leaving the field out does here (e.g. `scan_policy`
   * `do_not_scan` for a key with one address). The default always does.
   */
  readonly alsoNoOp?: (value: unknown) => boolean;
}

/** `field`'s documented default, or `undefined` when it has none. */
export function documentedDefault(field: string): unknown {
  return Object.hasOwn(REQUEST_DEFAULTS, field) ? REQUEST_DEFAULTS[field as DefaultedField] : undefined;
}

/** Whether `value` is `field`'s documented default. */
export function isDefault(field: string, value: unknown): boolean {
  const fallback = documentedDefault(field);
  return fallback !== undefined && isDeepStrictEqual(value, fallback);
}

/**
 * The rule: the first of `fields` given with a value that would change something were the field to
 * have an effect here, or `undefined` when every one is left out, at its default, or a no-op.
 */
export function firstWithoutEffect(fields: readonly FieldWithoutEffect[]): FieldWithoutEffect | undefined {
  return fields.find((f) => f.value !== undefined && !isDefault(f.field, f.value) && f.alsoNoOp?.(f.value) !== true);
}

/**
 * The refusal of the rule's first offending field, or `undefined`: `<path> <value>: <why>, so it
 * would have no effect; leave it out (or give its default, <default>)[, or <otherwise>]`.
 */
export function withoutEffectMessage(fields: readonly FieldWithoutEffect[], why: string, otherwise?: string): string | undefined {
  const given = firstWithoutEffect(fields);
  if (given === undefined) return undefined;
  const fallback = documentedDefault(given.field);
  const remedy = `leave it out${fallback === undefined ? '' : ` (or give its default, ${JSON.stringify(fallback)})`}`;
  return `${given.path} ${JSON.stringify(given.value)}: ${why}, so it would have no effect; ${remedy}${otherwise === undefined ? '' : `, or ${otherwise}`}`;
}
