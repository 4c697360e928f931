/**
 * How key providers keep their secrets in (docs/compatibility.md §6): the passphrase is read once, and a
 * provider object prints only a public view through `JSON.stringify`, `String` and `util.inspect`.
 * Private keys themselves live in the provider's closure, never in a property.
 */
import { inspect } from 'node:util';

/** A passphrase given directly or as a {@link import('../config/secret.ts').Secret}-like holder. */
export type PassphraseInput = string | { reveal(): string };

/** The text of a {@link PassphraseInput}. Call only where the key is derived. */
export function revealPassphrase(passphrase: PassphraseInput): string {
  return typeof passphrase === 'string' ? passphrase : passphrase.reveal();
}

/**
 * Gives `provider` a `toJSON` returning `view`, a `toString` and `util.inspect` form
 * `Name { key: 'value', … }`, and freezes it. `view` must hold only public values.
 */
export function sealProvider<T extends object>(name: string, provider: T, view: Readonly<Record<string, string>>): Readonly<T> {
  const fields = Object.entries(view).map(([key, value]) => `${key}: '${value}'`).join(', ');
  const describe = () => `${name} { ${fields} }`;
  Object.defineProperties(provider, {
    toJSON: { value: () => ({ ...view }) },
    toString: { value: describe },
    [inspect.custom]: { value: describe },
  });
  return Object.freeze(provider);
}
