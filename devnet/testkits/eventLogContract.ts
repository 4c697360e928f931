import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { coinStream, taskStream, type EventLog } from '../../events/log/eventLog.ts';

/** A fresh, empty log for one contract test. */
export interface ContractSubject {
  readonly log: EventLog;
  /** Opens the same log again (a new session) after the suite closed `log`. */
  reopen?(): Promise<EventLog>;
  /** Removes what `open` created. The suite closes every log it got before calling this. */
  cleanup(): Promise<void>;
}

const disabled = (ticker: string): DomainEvent => ({ type: 'CoinDisabled', data: { ticker, tokens: [] } });
const forgotten = (taskId: number): DomainEvent => ({ type: 'TaskForgotten', data: { taskId } });

async function readAll(log: EventLog, fromSeq?: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(fromSeq)) out.push(e);
  return out;
}

const summary = (events: readonly StoredEvent[]) => events.map((e) => [e.metadata.seq, e.metadata.stream, e.metadata.streamSeq]);

/**
 * Registers the {@link EventLog} contract as node:test tests named `<name>: …`. Every adapter
 * (the embedded file log, the JetStream log) must pass the same suite. `open` must give an empty
 * log whose global positions start at 1.
 */
export function eventLogContract(name: string, open: () => Promise<ContractSubject>): void {
  const withSubject = (title: string, body: (s: ContractSubject, logs: EventLog[]) => Promise<void>) =>
    test(`${name}: ${title}`, async () => {
      const subject = await open();
      const logs = [subject.log];
      try {
        await body(subject, logs);
      } finally {
        for (const log of logs) await log.close().catch(() => undefined);
        await subject.cleanup();
      }
    });

  withSubject('an empty log reads nothing and its lastSeq is 0', async ({ log }) => {
    assert.equal(log.lastSeq, 0);
    assert.deepEqual(await readAll(log), []);
  });

  withSubject('concurrent appends are stored in call order', async ({ log }) => {
    const calls = Array.from({ length: 24 }, (_, i) => ({
      stream: i % 3 === 0 ? taskStream(i) : coinStream(`C${i % 4}`),
      events: Array.from({ length: 1 + (i % 3) }, () => (i % 3 === 0 ? forgotten(i) : disabled(`C${i % 4}`))),
    }));
    const results = await Promise.all(calls.map((c) => log.append(c.stream, c.events)));
    const returned = results.flat();
    assert.deepEqual(
      returned.map((e) => e.metadata.stream),
      calls.flatMap((c) => c.events.map(() => c.stream)),
    );
    const seqs = returned.map((e) => e.metadata.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'global positions follow call order');
    assert.deepEqual(summary(await readAll(log)), summary(returned));
  });

  withSubject('global positions are 1..n and each stream counts its own events from 1', async ({ log }) => {
    await log.append(coinStream('ETH'), [disabled('ETH')]);
    await log.append(coinStream('BNB'), [disabled('BNB'), disabled('BNB')]);
    await log.append(taskStream(7), [forgotten(7)]);
    await log.append(coinStream('ETH'), [disabled('ETH')]);
    const events = await readAll(log);
    assert.deepEqual(summary(events), [
      [1, 'coin.ETH', 1],
      [2, 'coin.BNB', 1],
      [3, 'coin.BNB', 2],
      [4, 'task.7', 1],
      [5, 'coin.ETH', 2],
    ]);
    assert.equal(log.lastSeq, 5);
    assert.deepEqual(events[3]!.data, { taskId: 7 });
    for (const e of events) {
      assert.equal(e.metadata.sessionId, log.sessionId);
      assert.ok(!Number.isNaN(Date.parse(e.metadata.time)), 'time is a date');
    }
  });

  withSubject('reads from a position', async ({ log }) => {
    for (let i = 0; i < 6; i++) await log.append(coinStream(`T${i % 2}`), [disabled(`T${i % 2}`)]);
    assert.deepEqual((await readAll(log, 4)).map((e) => e.metadata.seq), [4, 5, 6]);
    assert.deepEqual((await readAll(log, 1)).length, 6);
    assert.deepEqual(await readAll(log, log.lastSeq + 1), []);
    const partial: number[] = [];
    for await (const e of log.read(2)) {
      partial.push(e.metadata.seq);
      if (partial.length === 2) break; // abandoning a read is fine
    }
    assert.deepEqual(partial, [2, 3]);
  });

  withSubject('subscribers see each new event once, in order, after it is durable', async ({ log }) => {
    await log.append(coinStream('OLD'), [disabled('OLD')]);
    const seen: StoredEvent[] = [];
    const readable: Promise<StoredEvent[]>[] = [];
    const unsubscribe = log.subscribe((e) => {
      seen.push(e);
      readable.push(readAll(log, e.metadata.seq));
    });
    const appended = await Promise.all([
      log.append(coinStream('A'), [disabled('A'), disabled('A')]),
      log.append(coinStream('B'), [disabled('B')]),
    ]);
    assert.deepEqual(seen, appended.flat(), 'delivered before append resolves, equal to what it returned');
    for (const [i, reading] of readable.entries()) {
      assert.equal((await reading)[0]?.metadata.eventId, seen[i]!.metadata.eventId, 'readable when delivered');
    }
    unsubscribe();
    await log.append(coinStream('A'), [disabled('A')]);
    assert.equal(seen.length, 3, 'nothing after unsubscribe');
  });

  withSubject('event ids are unique and survive the round trip', async ({ log }) => {
    const returned = (
      await Promise.all(Array.from({ length: 10 }, (_, i) => log.append(coinStream(`U${i % 3}`), Array(5).fill(disabled(`U${i % 3}`)))))
    ).flat();
    const ids = returned.map((e) => e.metadata.eventId);
    assert.equal(new Set(ids).size, 50);
    assert.deepEqual((await readAll(log)).map((e) => e.metadata.eventId), ids);
  });

  withSubject('a reopened log continues both sequences', async (subject, logs) => {
    if (subject.reopen === undefined) return;
    const { log } = subject;
    await log.append(coinStream('ETH'), [disabled('ETH'), disabled('ETH')]);
    await log.append(taskStream(1), [forgotten(1)]);
    await log.close();
    const reopened = await subject.reopen();
    logs.push(reopened);
    assert.equal(reopened.lastSeq, 3);
    assert.notEqual(reopened.sessionId, log.sessionId);
    const [next] = await reopened.append(coinStream('ETH'), [disabled('ETH')]);
    assert.deepEqual([next!.metadata.seq, next!.metadata.streamSeq, next!.metadata.sessionId], [4, 3, reopened.sessionId]);
    const events = await readAll(reopened);
    assert.deepEqual(summary(events), [
      [1, 'coin.ETH', 1],
      [2, 'coin.ETH', 2],
      [3, 'task.1', 1],
      [4, 'coin.ETH', 3],
    ]);
    assert.deepEqual(events.map((e) => e.metadata.sessionId), [log.sessionId, log.sessionId, log.sessionId, reopened.sessionId]);
  });
}
