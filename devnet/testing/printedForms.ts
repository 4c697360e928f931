import { inspect } from 'node:util';

/** Every way a value can end up printed (JSON, string, inspect of it and of its own properties): for secrecy tests. */
export function printedForms(value: object): string[] {
  return [
    JSON.stringify(value),
    String(value),
    `${value as { toString(): string }}`,
    inspect(value, { showHidden: true, depth: Infinity, getters: true }),
    inspect(Object.getOwnPropertyDescriptors(value), { showHidden: true, depth: Infinity }),
    ...Reflect.ownKeys(value).map((k) => inspect((value as Record<PropertyKey, unknown>)[k], { showHidden: true })),
  ];
}
