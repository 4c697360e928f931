import { Type, type TSchema } from '@sinclair/typebox';

/** The building blocks every domain event module shares (spec/events.ts and the modules it re-exports). */

/** Balances in events: exact decimal strings in the coin's unit (spec/amount.ts). */
export const EventBalance = Type.Object({ spendable: Type.String(), unspendable: Type.String() });

/** An event's schema: its past-tense `type` and its `data`. */
export function event<K extends string, D extends TSchema>(type: K, data: D) {
  return Type.Object({ type: Type.Literal(type), data });
}
