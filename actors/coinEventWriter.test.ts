import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DomainEvent, StoredEvent } from '../spec/events.ts';
import type { EventLog } from '../events/log/eventLog.ts';
import { CoinEventWriter } from './coinEventWriter.ts';

/** A log that records each append call: its stream and its events' types. */
function recordingLog(): { log: EventLog; calls: string[][] } {
  const calls: string[][] = [];
  const log: EventLog = {
    sessionId: 's',
    lastSeq: 0,
    append: async (stream: string, events: readonly DomainEvent[]) => {
      calls.push([stream, ...events.map((e) => e.type)]);
      return [] as StoredEvent[];
    },
    read: async function* () {},
    subscribe: () => () => undefined,
    close: async () => undefined,
  };
  return { log, calls };
}

const progress = (ms: number): DomainEvent => ({
  type: 'NodeAttempted',
  data: { ticker: 'ETH', family: 'evm', attempt: 1, read: 1, retry: 0, node: 0, origin: 'http://127.0.0.1:1', outcome: 'answered', ms },
});
const activated: DomainEvent = { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 1 } };
const turn = () => new Promise((r) => setImmediate(r));

test('Given progress waiting, When the coin\'s next event comes in the same turn, Then both go in one write, progress first', async () => {
  const { log, calls } = recordingLog();
  const writer = new CoinEventWriter(log);
  writer.appendSoon('ETH', progress(1));
  writer.appendSoon('ETH', progress(2));
  writer.append('ETH', activated);
  await turn();
  assert.deepEqual(calls, [['coin.ETH', 'NodeAttempted', 'NodeAttempted', 'ActivationCancelled']]);
});

test('Given progress alone, When the turn ends, Then it is written on its own; and flush writes what still waits', async () => {
  const { log, calls } = recordingLog();
  const writer = new CoinEventWriter(log);
  writer.appendSoon('ETH', progress(1));
  assert.deepEqual(calls, [], 'not before the turn ends');
  await turn();
  assert.deepEqual(calls, [['coin.ETH', 'NodeAttempted']]);
  writer.appendSoon('BNB', progress(2));
  await writer.flush();
  assert.deepEqual(calls, [['coin.ETH', 'NodeAttempted'], ['coin.BNB', 'NodeAttempted']]);
  await turn();
  assert.equal(calls.length, 2, 'nothing written twice');
});
