import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DomainEvent } from '../../spec/events.ts';
import type { MemorySink } from '../../devnet/testkits/memorySink.ts';
import { outboxFixture, streamShape } from '../../devnet/testkits/outboxFixture.ts';
import { NODE_STREAM, coinStream } from '../log/eventLog.ts';
import type { EventSink } from './eventSink.ts';
import { startOutboxPublisherOn } from './outboxPublisher.ts';
import { OutboxConflictError } from './publishLoop.ts';
import { eventSubject } from '../jetstream/subjects.ts';
import { eventually } from '../../devnet/testing/tasks.ts';

const NODE = 'node-1';
const disabled = (ticker: string): DomainEvent => ({ type: 'CoinDisabled', data: { ticker, tokens: [] } });
const session: DomainEvent = { type: 'SessionStarted', data: { sessionId: 's2', version: '0.1.0', derivationMethod: 'Iguana' } };
const coin = (ticker: string) => eventSubject(NODE, coinStream(ticker));

/**
 * A {@link MemorySink} whose publishes to held subjects wait (unstored, unacknowledged) until
 * released, as a PubAck that has not come back yet. `sent` lists every publish call in order.
 */
class HeldSink implements EventSink {
  readonly sent: string[] = [];
  readonly #held = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();
  constructor(readonly inner: MemorySink) {}
  get reconnected() {
    return this.inner.reconnected;
  }
  hold(subject: string): void {
    this.#held.add(subject);
  }
  release(subject: string): void {
    this.#held.delete(subject);
    for (const go of this.#waiting.get(subject) ?? []) go();
    this.#waiting.delete(subject);
  }
  async publish(subject: string, body: string, eventId: string, expected: number) {
    this.sent.push(subject);
    if (this.#held.has(subject)) await new Promise<void>((go) => this.#waiting.set(subject, [...(this.#waiting.get(subject) ?? []), go]));
    return this.inner.publish(subject, body, eventId, expected);
  }
  head = (subject: string) => this.inner.head(subject);
  createStreamIfMissing = () => this.inner.createStreamIfMissing();
  neverHeld = (filter: string) => this.inner.neverHeld(filter);
  close = () => this.inner.close();
}

/** Lets every publish that could start do so (the sink answers at once). */
const settle = () => new Promise((r) => setTimeout(r, 20));

async function fixture(t: { after(fn: () => Promise<void>): void }) {
  const { sink: memory, ...rest } = await outboxFixture(t, NODE);
  return { ...rest, memory, sink: new HeldSink(memory) };
}

const shape = streamShape;

test('Given an unacknowledged publish on one aggregate, other aggregates are published meanwhile, its next event waits, and the mark stays before it', async (t) => {
  const { outbox, memory, sink, options } = await fixture(t);
  for (const ticker of ['ETH', 'BNB', 'ETH', 'TRX']) await outbox.append(coinStream(ticker), [disabled(ticker)]);
  sink.hold(coin('ETH'));
  const publisher = await startOutboxPublisherOn(sink, options());
  await eventually(() => memory.messages.length === 2, 'BNB and TRX are in the stream');
  await settle();
  assert.deepEqual(sink.sent, [coin('ETH'), coin('BNB'), coin('TRX')], 'ETH#2 is not sent before ETH#1 is acknowledged');
  assert.equal(publisher.published(), 0, 'the mark cannot pass the unconfirmed ETH#1');
  sink.release(coin('ETH'));
  await publisher.whenCaughtUp();
  assert.equal(publisher.published(), 4);
  assert.deepEqual(shape(memory).perSubject.get(coin('ETH')), [1, 2]);
  await publisher.stop();
});

test('Given a session start between coin events, nothing overtakes it and it overtakes nothing', async (t) => {
  const { outbox, memory, sink, options } = await fixture(t);
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  await outbox.append(NODE_STREAM, [session]);
  await outbox.append(coinStream('BNB'), [disabled('BNB')]);
  const node = eventSubject(NODE, NODE_STREAM);
  sink.hold(coin('ETH'));
  sink.hold(node);
  const publisher = await startOutboxPublisherOn(sink, options());
  await eventually(() => sink.sent.length === 1, 'ETH#1 is sent');
  await settle();
  assert.deepEqual(sink.sent, [coin('ETH')], 'the session start waits for ETH#1');
  sink.release(coin('ETH'));
  await eventually(() => sink.sent.length === 2, 'the session start is sent');
  await settle();
  assert.deepEqual(sink.sent, [coin('ETH'), node], 'BNB#1 waits for the session start');
  sink.release(node);
  await publisher.whenCaughtUp();
  assert.deepEqual(memory.messages.map((m) => m.subject), [coin('ETH'), node, coin('BNB')]);
  await publisher.stop();
});

test('Given aggregates never published, their first events need no lookup; after a restart each subject is looked up once', async (t) => {
  const { outbox, memory, options, dir } = await fixture(t);
  for (let i = 0; i < 20; i++) await outbox.append(coinStream(`C${i % 5}`), [disabled(`C${i % 5}`)]);
  const first = await startOutboxPublisherOn(memory, options());
  await first.whenCaughtUp();
  await first.stop();
  assert.deepEqual(memory.lookups, [], 'first events expect an empty subject; later ones the head kept from the last publish');
  await writeFile(join(dir, 'published.seq'), '10\n');
  memory.dedupe.clear(); // the duplicate window has passed: only the subject check stands
  for (let i = 0; i < 5; i++) await outbox.append(coinStream(`C${i}`), [disabled(`C${i}`)]);
  const second = await startOutboxPublisherOn(memory, options());
  await second.whenCaughtUp();
  await second.stop();
  assert.deepEqual(memory.lookups.sort(), [0, 1, 2, 3, 4].map((i) => coin(`C${i}`)), 'one lookup per subject');
  const { count, unique, perSubject } = shape(memory);
  assert.equal(count, 25);
  assert.ok(unique);
  for (const seqs of perSubject.values()) assert.deepEqual(seqs, [1, 2, 3, 4, 5]);
});

test('Given a first event the stream already holds (outside the duplicate window), the refused guess looks the subject up and skips it', async (t) => {
  const { outbox, memory, options, dir, warnings } = await fixture(t);
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  const first = await startOutboxPublisherOn(memory, options());
  await first.whenCaughtUp();
  await first.stop();
  memory.dedupe.clear();
  await writeFile(join(dir, 'published.seq'), '0\n');
  const second = await startOutboxPublisherOn(memory, options());
  await second.whenCaughtUp();
  await second.stop();
  assert.equal(memory.messages.length, 1);
  assert.deepEqual(memory.lookups, [coin('ETH')]);
  assert.deepEqual(warnings, [], 'an expected refusal is not a warning');
});

test('Given another writer appended to a subject after our publish, the wrong sequence makes it look again and stop on the conflict', async (t) => {
  const { outbox, memory, options } = await fixture(t);
  const [ours] = await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  const publisher = await startOutboxPublisherOn(memory, options());
  await publisher.whenCaughtUp();
  memory.inject(coin('ETH'), { ...ours!, metadata: { ...ours!.metadata, eventId: 'someone-else', streamSeq: 2 } });
  await outbox.append(coinStream('ETH'), [disabled('ETH')]);
  await assert.rejects(publisher.whenCaughtUp(), OutboxConflictError);
  assert.deepEqual(memory.lookups, [coin('ETH')], 'looked up after the refusal');
  assert.equal(publisher.published(), 1);
  await publisher.stop();
});

test('Given a crash with publishes in flight (later aggregates already in the stream), a restart from the mark publishes every event once, in order', async (t) => {
  const { outbox, memory, sink, options, dir } = await fixture(t);
  for (let i = 0; i < 30; i++) await outbox.append(coinStream(`C${i % 3}`), [disabled(`C${i % 3}`)]);
  sink.hold(coin('C1'));
  const crashed = await startOutboxPublisherOn(sink, options());
  await eventually(() => memory.messages.length === 20, 'C0 and C2 are published');
  assert.equal(crashed.published(), 1, 'only C0#1 is before the unacknowledged C1#1');
  await crashed.stop(); // the process dies: C1#1 is still on the wire
  assert.equal(await readFile(join(dir, 'published.seq'), 'utf8'), '1\n');
  sink.release(coin('C1')); // … and lands after all
  await eventually(() => memory.messages.length === 21, 'C1#1 lands');
  memory.dedupe.clear(); // and the restart comes after the duplicate window
  const restarted = await startOutboxPublisherOn(memory, options());
  await restarted.whenCaughtUp();
  await restarted.stop();
  const { count, unique, perSubject } = shape(memory);
  assert.equal(count, 30);
  assert.ok(unique);
  for (const seqs of perSubject.values()) assert.deepEqual(seqs, Array.from({ length: 10 }, (_, i) => i + 1));
});
