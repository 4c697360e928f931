import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ElectrumCall } from '../electrum/electrumConnection.ts';
import { coalescedBatch } from './coalescedBatch.ts';

/** A server that answers `method:param` for each call (refusing method `bad`) and records every batch it was sent. */
function server(fail = false) {
  const batches: ElectrumCall[][] = [];
  const send = async (calls: readonly ElectrumCall[]): Promise<PromiseSettledResult<unknown>[]> => {
    batches.push([...calls]);
    if (fail) throw new Error('connection closed');
    return calls.map((c) => (c.method === 'bad' ? { status: 'rejected', reason: new Error('unknown method') } : { status: 'fulfilled', value: `${c.method}:${String(c.params[0])}` }));
  };
  return { batches, send };
}

const call = (method: string, param: string): ElectrumCall => ({ method, params: [param] });

test('Given three readers in one turn, When they ask, Then one batch goes out with each distinct call once, and each reader gets its own answers in its order', async () => {
  const s = server();
  const batch = coalescedBatch(s.send);
  const [a, b, c] = await Promise.all([
    batch([call('get_balance', 'h1'), call('listunspent', 'h1')]),
    batch([call('listunspent', 'h1'), call('get_balance', 'h1')]),
    batch([call('get_balance', 'h2')]),
  ]);
  assert.equal(s.batches.length, 1);
  assert.deepEqual(s.batches[0]!.map((x) => `${x.method} ${x.params[0]}`), ['get_balance h1', 'listunspent h1', 'get_balance h2']);
  assert.deepEqual(a, ['get_balance:h1', 'listunspent:h1']);
  assert.deepEqual(b, ['listunspent:h1', 'get_balance:h1']);
  assert.deepEqual(c, ['get_balance:h2']);
});

test('Given a batch already sent, When a reader asks again, Then its calls go out in a new batch', async () => {
  const s = server();
  const batch = coalescedBatch(s.send);
  await batch([call('get_balance', 'h1')]);
  assert.deepEqual(await batch([call('get_balance', 'h1')]), ['get_balance:h1']);
  assert.equal(s.batches.length, 2);
});

test('Given a failing server, When two readers share a batch, Then both fail with its error', async () => {
  const batch = coalescedBatch(server(true).send);
  const results = await Promise.allSettled([batch([call('get_balance', 'h1')]), batch([call('get_balance', 'h2')])]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  assert.match(String((results[0] as PromiseRejectedResult).reason), /connection closed/);
});

test('Given a call the server refuses, When it shares a batch, Then only the reader that asked it fails', async () => {
  const s = server();
  const batch = coalescedBatch(s.send);
  const results = await Promise.allSettled([batch([call('bad', 'x')]), batch([call('get_balance', 'h1')])]);
  assert.equal(s.batches.length, 1);
  assert.equal(results[0]!.status, 'rejected');
  assert.deepEqual(results[1], { status: 'fulfilled', value: ['get_balance:h1'] });
});
