import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import type { DomainEvent } from '../../spec/events.ts';
import { CoinHistory } from './historySync.ts';
import { HistoryRefusedError, type HistorySource, type HistoryStore, type ListedTx, type StoredHistory, type TxRecord } from './historyPort.ts';

const record = (t: ListedTx): TxRecord => ({ txHash: t.txHash, txHex: '00', blockHeight: t.height, timestamp: t.height, from: [], to: ['A'], totalAmount: 0n, spentByMe: 0n, receivedByMe: 1n, fee: 0n });
const listed = (n: number): ListedTx[] => Array.from({ length: n }, (_, i) => ({ txHash: `h${i}`, height: 10 + i }));

function fakeSource(txs: ListedTx[], failures: Error[] = []) {
  const asked: string[][] = [];
  const heard: { block?: (height: number) => void } = {};
  const source: HistorySource = {
    follow(listener) {
      heard.block = (height) => listener.block(height);
      return () => delete heard.block;
    },
    addresses: () => [{ address: 'A' }],
    requests: () => asked.length,
    async list() {
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return { currentBlock: 50, txs };
    },
    async details(wanted) {
      asked.push(wanted.map((t) => t.txHash));
      return wanted.map(record);
    },
  };
  return { source, asked, heard };
}

function memoryStore(kept?: StoredHistory) {
  const saves: number[] = [];
  let value = kept;
  const store: HistoryStore = {
    load: async () => value,
    save: async (_key, history) => {
      saves.push(history.records.length);
      value = history;
    },
  };
  return { store, saves };
}

function coinHistory(source: HistorySource, store: HistoryStore, clock = new ManualClock()) {
  const events: DomainEvent[] = [];
  const pushed: number[] = [];
  const history = new CoinHistory({ ticker: 'LTC', key: 'k', source, store, clock, chunk: 2, append: (e) => events.push(e), entries: (r) => pushed.push(r.length) });
  return { history, events, pushed, clock };
}

const described = (events: DomainEvent[]) => events.map((e) => `${e.type} ${JSON.stringify(e.data)}`);

describe('CoinHistory (one coin\'s history sync)', () => {
  test('Given nothing kept, When it starts, Then newest first in chunks, each saved and pushed, then Finished with two events', async () => {
    const { source, asked } = fakeSource(listed(5));
    const { store, saves } = memoryStore();
    const { history, events, pushed } = coinHistory(source, store);
    await history.start(40);
    await history.idle();
    assert.deepEqual(asked, [['h4', 'h3'], ['h2', 'h1'], ['h0']]);
    assert.deepEqual([saves, pushed], [[2, 4, 5], [2, 2, 1]]);
    assert.deepEqual(history.status, { state: 'Finished' });
    assert.deepEqual(history.records.map((r) => r.txHash), ['h4', 'h3', 'h2', 'h1', 'h0']);
    assert.deepEqual(described(events), ['HistorySyncStarted {"ticker":"LTC","transactionsLeft":5,"block":50}', 'HistorySynced {"ticker":"LTC","total":5,"added":5,"block":50}']);
  });

  test('Given 3 of 5 kept (a restart mid-sync), When it starts, Then only the 2 missing are fetched', async () => {
    const txs = listed(5);
    const { source, asked } = fakeSource(txs);
    const { store } = memoryStore({ records: txs.slice(2).map(record), block: 45 });
    const { history, events } = coinHistory(source, store);
    await history.start(40);
    await history.idle();
    assert.deepEqual(asked, [['h1', 'h0']]);
    assert.equal(history.records.length, 5);
    assert.match(described(events)[0]!, /"transactionsLeft":2/);
  });

  test('Given a server that refuses the history call, Then Error with its code and reason, one HistorySyncFailed, no retry; When a block comes, Then it passes again', async () => {
    const { source, heard } = fakeSource(listed(2), [new HistoryRefusedError('history too large', 1)]);
    const { history, events } = coinHistory(source, memoryStore().store);
    await history.start(40);
    await history.idle();
    assert.deepEqual(history.status, { state: 'Error', code: 1, message: 'history too large' });
    assert.deepEqual(described(events), ['HistorySyncFailed {"ticker":"LTC","code":1,"message":"history too large"}']);
    heard.block!(51);
    await history.idle();
    assert.deepEqual([history.status, history.records.length], [{ state: 'Finished' }, 2]);
  });

  test('Given transport failures, When the backoff passes on the clock, Then the pass runs again and finishes', async () => {
    const { source } = fakeSource(listed(1), [new Error('connection closed'), new Error('connection closed')]);
    const { history, clock } = coinHistory(source, memoryStore().store);
    await history.start(40);
    for (let i = 0; i < 10 && history.status.state !== 'Finished'; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(2_000);
    }
    await history.idle();
    assert.deepEqual(history.status, { state: 'Finished' });
    assert.equal(history.records.length, 1);
  });

  test('Given an unconfirmed entry, When the server no longer lists it, Then it leaves the history; a pass with no change writes no event', async () => {
    const txs: ListedTx[] = [...listed(2), { txHash: 'm', height: 0 }];
    const { source } = fakeSource(txs);
    const { history, events } = coinHistory(source, memoryStore().store);
    await history.start(40);
    await history.idle();
    assert.equal(history.records[0]!.txHash, 'm');
    history.trigger();
    await history.idle();
    assert.equal(events.length, 2, 'nothing changed: no event');
    txs.pop();
    history.trigger();
    await history.idle();
    assert.deepEqual(history.records.map((r) => r.txHash), ['h1', 'h0']);
    assert.equal(described(events).at(-1), 'HistorySynced {"ticker":"LTC","total":2,"added":0,"block":50}');
  });
});
