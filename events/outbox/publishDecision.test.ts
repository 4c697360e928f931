import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadCache, decidePublish } from './publishDecision.ts';

test('an event is skipped when its subject already holds it or a later one; another id at its place conflicts', () => {
  const head = { seq: 40, streamSeq: 5, eventId: 'e5' };
  assert.deepEqual(decidePublish({ eventId: 'e1', streamSeq: 1 }, undefined), { kind: 'publish', expectedLastSubjectSeq: 0, gap: false });
  assert.deepEqual(decidePublish({ eventId: 'e3', streamSeq: 3 }, undefined), { kind: 'publish', expectedLastSubjectSeq: 0, gap: true });
  assert.deepEqual(decidePublish({ eventId: 'e4', streamSeq: 4 }, head), { kind: 'skip' });
  assert.deepEqual(decidePublish({ eventId: 'e5', streamSeq: 5 }, head), { kind: 'skip' });
  assert.equal(decidePublish({ eventId: 'x5', streamSeq: 5 }, head).kind, 'conflict');
  assert.deepEqual(decidePublish({ eventId: 'e6', streamSeq: 6 }, head), { kind: 'publish', expectedLastSubjectSeq: 40, gap: false });
  assert.deepEqual(decidePublish({ eventId: 'e8', streamSeq: 8 }, head), { kind: 'publish', expectedLastSubjectSeq: 40, gap: true });
});

test('the head cache forgets the least recently used subject beyond its limit, and remembers empty subjects', () => {
  const cache = new HeadCache(2);
  cache.set('a', undefined);
  cache.set('b', { seq: 1, streamSeq: 1, eventId: 'x' });
  assert.equal(cache.has('a'), true);
  cache.get('a'); // a is now the most recent
  cache.set('c', { seq: 2, streamSeq: 1, eventId: 'y' });
  assert.deepEqual([cache.has('a'), cache.has('b'), cache.has('c')], [true, false, true]);
});
