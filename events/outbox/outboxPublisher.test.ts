import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog, LOG_FILE } from '../log/embeddedEventLog.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { MemorySink } from '../../devnet/testkits/memorySink.ts';
import type { DomainEvent } from '../../spec/events.ts';
import { coinStream } from '../log/eventLog.ts';
import { outboxFixture, streamShape } from '../../devnet/testkits/outboxFixture.ts';
import { OutboxConflictError } from './publishLoop.ts';
import { startOutboxPublisher, startOutboxPublisherOn } from './outboxPublisher.ts';
import { eventSubject } from '../jetstream/subjects.ts';

const NODE = 'node-1';
const disabled = (ticker: string): DomainEvent => ({ type: 'CoinDisabled', data: { ticker, tokens: [] } });

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

const fixture = (t: { after(fn: () => Promise<void>): void }) => outboxFixture(t, NODE);

test('publishes the outbox to per-aggregate subjects, each in order, and saves the mark', async (t) => {
  const { outbox, sink, options, dir } = await fixture(t);
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  const publisher = await startOutboxPublisherOn(sink, options());
  await outbox.append(coinStream('BNB'), [disabled('BNB'), disabled('BNB')]);
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  await publisher.whenCaughtUp();
  assert.equal(publisher.published(), 4);
  assert.equal(publisher.lagEvents(), 0);
  assert.deepEqual(
    streamShape(sink).perSubject,
    new Map([
      [eventSubject(NODE, 'coin.ETH'), [1, 2]],
      [eventSubject(NODE, 'coin.BNB'), [1, 2]],
    ]),
  );
  assert.deepEqual(
    sink.messages.map((m) => [m.subject, m.event.metadata.seq, m.event.metadata.streamSeq, m.event.metadata.nodeId]).sort((a, b) => Number(a[1]) - Number(b[1])),
    [
      [eventSubject(NODE, 'coin.ETH'), 1, 1, NODE],
      [eventSubject(NODE, 'coin.BNB'), 2, 1, NODE],
      [eventSubject(NODE, 'coin.BNB'), 3, 2, NODE],
      [eventSubject(NODE, 'coin.ETH'), 4, 2, NODE],
    ],
  );
  await publisher.stop();
  assert.equal(await readFile(join(dir, 'published.seq'), 'utf8'), '4\n');
});

test('while the sink is down it backs off exponentially (capped) on the clock and loses nothing', async (t) => {
  const { clock, outbox, sink, options } = await fixture(t);
  sink.down = true;
  const publisher = await startOutboxPublisherOn(sink, options({ backoff: { initialMs: 50, maxMs: 400 } }));
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  await until('the first attempt', () => sink.attempts.length === 1);
  for (const delay of [50, 100, 200, 400, 400, 400]) {
    const before = sink.attempts.length;
    clock.advance(delay - 1);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(sink.attempts.length, before, `no retry before ${delay} ms`);
    clock.advance(1);
    await until(`a retry after ${delay} ms`, () => sink.attempts.length === before + 1);
  }
  for (let i = 0; i < 20; i++) await outbox.append(coinStream(`C${i % 4}`), [disabled(`C${i % 4}`)]); // the service goes on
  assert.equal(publisher.lagEvents(), 21);
  sink.down = false;
  sink.reconnected.fire(); // retried at once, not after the backoff
  await publisher.whenCaughtUp();
  const shape = streamShape(sink);
  assert.equal(shape.count, 21);
  assert.ok(shape.unique);
  for (const seqs of shape.perSubject.values()) assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
  await publisher.stop();
});

test('a publisher restarted from an old mark, after the duplicate window, publishes nothing twice', async (t) => {
  const { outbox, sink, options, dir } = await fixture(t);
  for (let i = 0; i < 30; i++) await outbox.append(coinStream(`C${i % 3}`), [disabled(`C${i % 3}`)]);
  const first = await startOutboxPublisherOn(sink, options());
  await first.whenCaughtUp();
  await first.stop();
  sink.dedupe.clear(); // the duplicate window has passed: only the subject check stands
  await writeFile(join(dir, 'published.seq'), '7\n');
  await outbox.append(coinStream('C1'), [disabled('C1')]);
  const second = await startOutboxPublisherOn(sink, options());
  await second.whenCaughtUp();
  assert.equal(second.published(), 31);
  const shape = streamShape(sink);
  assert.equal(shape.count, 31);
  assert.ok(shape.unique);
  await second.stop();
});

test('a damaged mark republishes safely; a wiped stream is refilled from the outbox', async (t) => {
  const { outbox, sink, options, dir, warnings } = await fixture(t);
  for (let i = 0; i < 10; i++) await outbox.append(coinStream(`C${i % 2}`), [disabled(`C${i % 2}`)]);
  const first = await startOutboxPublisherOn(sink, options());
  await first.whenCaughtUp();
  await first.stop();
  await writeFile(join(dir, 'published.seq'), 'garbage');
  const second = await startOutboxPublisherOn(sink, options());
  await second.whenCaughtUp();
  await second.stop();
  assert.equal(streamShape(sink).count, 10);
  sink.wipe(); // the server lost its store; the mark still says 10
  const third = await startOutboxPublisherOn(sink, options());
  await until('the outbox is republished', () => sink.messages.length === 10);
  await third.whenCaughtUp();
  assert.equal(third.published(), 10);
  assert.ok(streamShape(sink).unique);
  assert.ok(warnings.some((w) => w.includes('republishing the outbox from the start')));
  await third.stop();
});

test('live events beyond the buffer limit are read back from the outbox, in order', async (t) => {
  const { outbox, sink, options } = await fixture(t);
  sink.down = true;
  const publisher = await startOutboxPublisherOn(sink, options({ bufferLimit: 5, backoff: { initialMs: 1, maxMs: 1 } }));
  await Promise.all(Array.from({ length: 60 }, (_, i) => outbox.append(coinStream(`C${i % 7}`), [disabled(`C${i % 7}`)])));
  sink.down = false;
  sink.reconnected.fire();
  await publisher.whenCaughtUp();
  assert.deepEqual(
    sink.messages.map((m) => m.event.metadata.seq),
    Array.from({ length: 60 }, (_, i) => i + 1),
  );
  await publisher.stop();
});

test('another history on a subject stops the publisher with a clear error; the outbox keeps working', async (t) => {
  const { outbox, sink, options } = await fixture(t);
  const [ours] = await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  sink.inject(eventSubject(NODE, 'coin.ETH'), { ...ours!, metadata: { ...ours!.metadata, eventId: 'someone-else' } });
  const publisher = await startOutboxPublisherOn(sink, options());
  await assert.rejects(publisher.whenCaughtUp(), OutboxConflictError);
  assert.match(publisher.failure()?.message ?? '', /coin\.ETH.*someone-else/);
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  assert.equal(publisher.lagEvents(), 2);
  await publisher.stop();
});

test('stop() returns promptly while the connection never came up, and keeps the mark', async (t) => {
  const { outbox, options, dir } = await fixture(t);
  await writeFile(join(dir, 'published.seq'), '3\n');
  const publisher = await startOutboxPublisher({ ...options(), clock: undefined, nc: new Promise(() => {}) });
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  assert.equal(publisher.lagEvents(), 0, 'the mark is ahead of this outbox (nothing to lag)');
  await publisher.stop();
  assert.equal(await readFile(join(dir, 'published.seq'), 'utf8'), '3\n');
});

test('an event read back from the outbox is sent as the log’s own JSON text; one written without this node’s id gets it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outbox-json-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const metadata = { eventId: 'e1', seq: 1, stream: 'coin.ETH', streamSeq: 1, sessionId: 's0', time: '2026-11-24T00:00:00.000Z' };
  // Valid JSON that re-encoding would not reproduce (spaces), and an event of a log from before NATS (no nodeId).
  const stored = `{"type": "CoinDisabled", "data": {"ticker": "ETH", "tokens": []}, "metadata": ${JSON.stringify({ ...metadata, nodeId: NODE })}}`;
  const older = { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] }, metadata: { ...metadata, eventId: 'e2', seq: 2, streamSeq: 2 } };
  const record = (json: string) => `${createHash('sha256').update(json).digest('hex').slice(0, 16)} ${json}\n`;
  await writeFile(join(dir, LOG_FILE), record(stored) + record(JSON.stringify(older)));
  const outbox = await EmbeddedEventLog.open({ dir, sessionId: 's1', nodeId: NODE, fsync: false });
  t.after(() => outbox.close());
  const clock = new ManualClock();
  const sink = new MemorySink(clock);
  const bodies: (string | Uint8Array)[] = [];
  const publish = sink.publish.bind(sink);
  sink.publish = (subject, body, eventId, expected) => (bodies.push(body), publish(subject, body, eventId, expected));
  const publisher = await startOutboxPublisherOn(sink, { outbox, nodeId: NODE, markFile: join(dir, 'published.seq'), clock });
  await publisher.whenCaughtUp();
  await publisher.stop();
  assert.deepEqual(bodies.map((b) => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'))), [stored, JSON.stringify({ ...older, metadata: { ...older.metadata, nodeId: NODE } })]);
});
