import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog, LOG_FILE } from './embeddedEventLog.ts';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';

const disabled = (ticker: string): DomainEvent => ({ type: 'CoinDisabled', data: { ticker, tokens: [] } });

async function all(log: EmbeddedEventLog): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read()) out.push(e);
  return out;
}

test('appends in call order with global and per-stream sequences, and survives reopen', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'log-'));
  const log = await EmbeddedEventLog.open({ dir, sessionId: 's1' });
  const seen: number[] = [];
  log.subscribe((e) => seen.push(e.metadata.seq));
  await Promise.all([log.append('coin.ETH', [disabled('ETH')]), log.append('coin.BNB', [disabled('BNB'), disabled('BNB')])]);
  await log.close();

  const reopened = await EmbeddedEventLog.open({ dir, sessionId: 's2' });
  await reopened.append('coin.ETH', [disabled('ETH')]);
  const events = await all(reopened);
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual(events.map((e) => [e.metadata.seq, e.metadata.stream, e.metadata.streamSeq, e.metadata.sessionId]), [
    [1, 'coin.ETH', 1, 's1'],
    [2, 'coin.BNB', 1, 's1'],
    [3, 'coin.BNB', 2, 's1'],
    [4, 'coin.ETH', 2, 's2'],
  ]);
  assert.equal(new Set(events.map((e) => e.metadata.eventId)).size, 4);
  await reopened.close();
});

test('a torn last record is dropped on reopen and nothing before it is lost', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'log-'));
  const log = await EmbeddedEventLog.open({ dir, sessionId: 's1' });
  await log.append('coin.ETH', [disabled('ETH'), disabled('ETH')]);
  await log.close();
  const path = join(dir, LOG_FILE);
  const intact = await readFile(path, 'utf8');
  await appendFile(path, intact.split('\n')[0]!.slice(0, 40)); // a crash mid-write

  const reopened = await EmbeddedEventLog.open({ dir, sessionId: 's2' });
  assert.equal(reopened.recovery.events, 2);
  assert.equal(reopened.recovery.droppedTailBytes, 40);
  await reopened.append('coin.ETH', [disabled('ETH')]);
  assert.deepEqual((await all(reopened)).map((e) => e.metadata.seq), [1, 2, 3]);
  await reopened.close();
});

test('damage before a good record refuses to open instead of losing history', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'log-'));
  const log = await EmbeddedEventLog.open({ dir, sessionId: 's1' });
  await log.append('coin.ETH', [disabled('ETH'), disabled('ETH')]);
  await log.close();
  const path = join(dir, LOG_FILE);
  const [first, second] = (await readFile(path, 'utf8')).split('\n');
  await writeFile(path, `${first!.replace('ETH', 'XTH')}\n${second}\n`);
  await assert.rejects(EmbeddedEventLog.open({ dir, sessionId: 's2' }), /damaged at byte 0/);
});

test('a second process cannot open the same log while the first holds it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'log-'));
  await writeFile(join(dir, 'LOCK'), '1'); // pid 1 is always alive
  await assert.rejects(EmbeddedEventLog.open({ dir, sessionId: 's' }), /in use by another running service/);
  await writeFile(join(dir, 'LOCK'), '999999999'); // a dead holder is taken over
  const log = await EmbeddedEventLog.open({ dir, sessionId: 's' });
  await log.close();
});
