import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRecords, confirmationsAt, historyPage, totalPages } from './historyPage.ts';
import type { TxRecord } from './historyPort.ts';

const record = (txHash: string, blockHeight: number, to: string[] = ['A']): TxRecord => ({
  txHash,
  txHex: '',
  blockHeight,
  timestamp: blockHeight === 0 ? 0 : 1_000 + blockHeight,
  from: [],
  to,
  totalAmount: 0n,
  spentByMe: 0n,
  receivedByMe: 1n,
  fee: 0n,
});

describe('history pages (the reference\'s order and paging)', () => {
  test('Given entries at several heights, When sorted, Then unconfirmed first, then highest block, ties by hash', () => {
    const sorted = [record('c', 5), record('b', 0), record('a', 7), record('d', 5), record('a0', 0)].sort(compareRecords);
    assert.deepEqual(sorted.map((r) => r.txHash), ['a0', 'b', 'a', 'c', 'd']);
  });

  test('Given 12 entries, When page 3 of 5 or after an id, Then the right slice, skipped and total', () => {
    const all = Array.from({ length: 12 }, (_, i) => record(`h${String(i).padStart(2, '0')}`, 100 - i));
    const page = historyPage(all, { pageNumber: 3 }, 5);
    assert.deepEqual([page.records.map((r) => r.txHash), page.skipped, page.total, page.fromIdFound], [['h10', 'h11'], 10, 12, true]);
    const after = historyPage(all, { fromId: 'H03' }, 4);
    assert.deepEqual([after.records.map((r) => r.txHash), after.skipped], [['h04', 'h05', 'h06', 'h07'], 4]);
    const unknown = historyPage(all, { fromId: 'ff' }, 4);
    assert.deepEqual([unknown.records, unknown.skipped, unknown.total, unknown.fromIdFound], [[], 0, 12, false]);
    assert.deepEqual([totalPages(12, 5), totalPages(10, 5), totalPages(12, 0)], [3, 2, 0]);
  });

  test('Given an address filter, When paged, Then only entries touching those addresses count', () => {
    const all = [record('a', 3, ['X']), record('b', 2, ['Y']), record('c', 1, ['X', 'Z'])];
    const page = historyPage(all, { pageNumber: 1 }, 10, new Set(['X']));
    assert.deepEqual([page.records.map((r) => r.txHash), page.total], [['a', 'c'], 2]);
    assert.equal(historyPage(all, { fromId: 'b' }, 10, new Set(['X'])).fromIdFound, false);
  });

  test('Given a tip, Then confirmations are 0 unconfirmed or above the tip, else tip - height + 1', () => {
    assert.deepEqual([confirmationsAt(record('a', 0), 10), confirmationsAt(record('a', 11), 10), confirmationsAt(record('a', 10), 10), confirmationsAt(record('a', 1), 10)], [0, 0, 1, 10]);
  });
});
