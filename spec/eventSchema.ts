import { Type, type TSchema } from '@sinclair/typebox';

/** The schema of one domain event: its past-tense `type` and its `data` (spec/events.ts collects them). */
export function event<K extends string, D extends TSchema>(type: K, data: D) {
  return Type.Object({ type: Type.Literal(type), data });
}
