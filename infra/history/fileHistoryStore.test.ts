import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileHistoryStore } from './fileHistoryStore.ts';
import type { TxRecord } from '../../actors/history/historyPort.ts';

const record: TxRecord = { txHash: 'ab', txHex: '0100', blockHeight: 7, timestamp: 1234, from: ['X'], to: ['Y', 'Z'], totalAmount: 2n ** 70n, spentByMe: 5n, receivedByMe: 0n, fee: null };

test('Given a saved history, When loaded, Then the same records (amounts exact); a file that is not a history loads as nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'history-store-'));
  try {
    const store = createFileHistoryStore(join(dir, 'history'));
    assert.equal(await store.load('LTC_00'), undefined);
    await Promise.all([store.save('LTC_00', { records: [], block: 1 }), store.save('LTC_00', { records: [record], block: 9 })]);
    assert.deepEqual(await store.load('LTC_00'), { records: [record], block: 9 }, 'the later save wins');
    assert.deepEqual(await readdir(join(dir, 'history')), ['LTC_00.json'], 'no temporary file left');
    await writeFile(join(dir, 'history', 'LTC_00.json'), '{"version":1,"block":');
    assert.equal(await store.load('LTC_00'), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
