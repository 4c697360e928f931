import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { buildMethodTables } from '../../rpc/methods/index.ts';
import { SeededRandom } from '../testing/seededRandom.ts';
import { mutate } from './mutations.ts';
import { fits, sitesOf, validInstance } from './schemaValues.ts';

/** The fuzzer's own judgement must agree with TypeBox's (defaults filled, as the service does). */
const typeboxAccepts = (schema: Parameters<typeof Value.Check>[0], value: unknown) => Value.Check(schema, Value.Default(schema, structuredClone(value)));

const schemas = Object.entries({ ...buildMethodTables({} as never, {} as never, {} as never, {} as never).methods }).map(([name, def]) => [name, def.params.schema] as const);

describe('fuzz values', () => {
  it('valid instances fit, and fits agrees with TypeBox on mutated ones', () => {
    const rand = new SeededRandom(7);
    const stringFor = () => rand.pick(['x', 'ETH', '']);
    let broken = 0;
    for (const [name, schema] of schemas) {
      for (let i = 0; i < 60; i++) {
        const instance = validInstance(schema, '', rand, stringFor);
        assert.ok(fits(schema, instance) && typeboxAccepts(schema, instance), `${name}: ${JSON.stringify(instance)}`);
        const sites = sitesOf(schema, instance).filter((s) => s.path.length > 0);
        if (sites.length === 0) continue;
        const { root, label } = mutate(instance, rand.pick(sites), rand, rand.pick(['wrongType', 'outOfRange', 'remove', 'extra', 'odd'] as const));
        assert.equal(fits(schema, root), typeboxAccepts(schema, root), `${name}, ${label}: ${JSON.stringify(root).slice(0, 300)}`);
        if (!fits(schema, root)) broken++;
      }
    }
    assert.ok(broken > 100, `most mutations break the schema (${broken})`);
  });
});
