import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusKey } from '../jetstream/subjects.ts';
import { canonicalJson } from './canonicalJson.ts';
import type { CoinStatus } from './coinStatus.ts';
import { StatusState, statusDigest } from './statusState.ts';
import { nextStatusValue, statusTarget, type StatusValue } from './statusRouting.ts';
import { busyNode } from '../../devnet/testkits/statusScenario.ts';

test('a busy node ends with the statuses its events describe', () => {
  const s = busyNode('node-1');
  const state = new StatusState();
  for (const e of s.events) state.apply(e, 'node-1');
  const coin = (t: string) => state.get(statusKey('node-1', `coin.${t}`)) as CoinStatus;
  assert.equal(coin('ETH').state, 'active', 're-activated in the new session');
  assert.deepEqual(coin('ETH').tokens?.map((t) => t.ticker), ['USDT-ERC20']);
  assert.deepEqual(coin('ETH').gasPrice, {
    gasPriceWei: '80000000000',
    gasPriceGwei: '80',
    updatedAt: '2025-01-01T01:00:00.000Z',
    stale: true,
    staleSince: '2025-01-01T01:01:00.000Z',
  });
  assert.equal(coin('MATIC').gasPrice, undefined, 'disabled: no price');
  for (const t of ['BNB', 'MATIC', 'AVAX']) assert.equal(coin(t).state, 'inactive', `${t}: reset by the new session`);
  assert.equal(coin('GLMR').error?.errorType, 'InternalError');
  assert.equal(coin('BNB').error, undefined, 'a new session clears the last failure');
  assert.equal(state.size, 5 + 5);
});

test('duplicates and redeliveries do not change the state; a second fold gives the same digest', () => {
  const events = busyNode('n').events;
  const once = new StatusState();
  for (const e of events) once.apply(e, 'n');
  const noisy = new StatusState();
  for (const [i, e] of events.entries()) {
    noisy.apply(e, 'n');
    noisy.apply(e, 'n');
    if (i > 3) noisy.apply(events[i - 3]!, 'n');
  }
  assert.equal(noisy.digest(), once.digest());
  assert.equal(statusDigest(Object.entries(JSON.parse(JSON.stringify(once.toObject())))), once.digest(), 'JSON round trip keeps the digest');
});

test('two nodes do not touch each other: a session start resets only its own node', () => {
  const a = busyNode('a');
  const b = busyNode('b');
  const state = new StatusState();
  for (const e of a.events) state.apply(e, 'a');
  const before = canonicalJson(state.toObject());
  for (const e of b.events) state.apply(e, 'b');
  const onlyA = Object.fromEntries(state.entries().filter(([k]) => k.startsWith('a.')));
  assert.equal(canonicalJson(onlyA), before);
});

test('canonical JSON sorts keys at every level and drops undefined', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } }), '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}');
});

test('task values rendered when read equal the projector’s per-event values, redeliveries included', () => {
  const events = busyNode('n').events;
  const state = new StatusState();
  const eager = new Map<string, StatusValue>();
  for (const [i, e] of [...events, ...events.slice(2)].entries()) {
    state.apply(e, 'n');
    const target = statusTarget(e, 'n');
    if (target?.kind === 'task') {
      const next = nextStatusValue(eager.get(target.key), e, target);
      if (next !== undefined) eager.set(target.key, next);
    }
    if (i % 5 === 0) for (const [key, value] of eager) assert.deepEqual(state.get(key), value, `${key} after event ${i}`);
  }
  assert.ok(eager.size > 0);
  for (const [key, value] of eager) assert.deepEqual(state.get(key), value, key);
});
