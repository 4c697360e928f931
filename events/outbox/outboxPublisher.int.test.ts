import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { startNatsServer, type NatsServer } from '../../devnet/nats/natsServer.ts';
import { EmbeddedEventLog } from '../log/embeddedEventLog.ts';
import { coinStream } from '../log/eventLog.ts';
import { ensureEventsStream } from '../jetstream/ensureStream.ts';
import { startOutboxPublisher, type OutboxPublisher, type OutboxPublisherOptions } from './outboxPublisher.ts';
import { readEvents } from '../../devnet/testkits/readEvents.ts';
import { nodeEventsFilter } from '../jetstream/streamOps.ts';
import { EVENTS_STREAM } from '../jetstream/subjects.ts';

const NODE = 'node-fault';
const TICKERS = Array.from({ length: 200 }, (_, i) => `TKN${i}`);

/** The three events of one activation, as the actors record them. */
function activation(ticker: string): DomainEvent[] {
  return [
    { type: 'ActivationRequested', data: { ticker, family: 'evm', via: 'enable_eth', tokens: [], getBalances: true, attempt: 1 } },
    {
      type: 'CoinActivated',
      data: { ticker, family: 'evm', address: '0xabc', pubkey: '02ab', derivationMethod: 'Iguana', currentBlock: 7, tokens: [], attempt: 1 },
    },
    { type: 'CoinDisabled', data: { ticker, tokens: [] } },
  ];
}

async function until(what: string, condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Rig {
  server: NatsServer;
  dir: string;
  outbox: EmbeddedEventLog;
  connections: NatsConnection[];
  connectClient(extra?: ConnectionOptions): Promise<NatsConnection>;
  publisherOptions(nc: NatsConnection | Promise<NatsConnection>, extra?: Partial<OutboxPublisherOptions>): OutboxPublisherOptions;
}

async function rig(t: { after(fn: () => Promise<void>): void }, duplicateWindowMs?: number): Promise<Rig> {
  const server = await startNatsServer();
  const dir = await mkdtemp(join(tmpdir(), 'outbox-int-'));
  const connections: NatsConnection[] = [];
  const outbox = await EmbeddedEventLog.open({ dir, sessionId: 'session-1', nodeId: NODE });
  const r: Rig = {
    server,
    dir,
    outbox,
    connections,
    async connectClient(extra = {}) {
      const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 50, ...extra });
      connections.push(nc);
      return nc;
    },
    publisherOptions: (nc, extra = {}) => ({
      outbox,
      nc,
      nodeId: NODE,
      markFile: join(dir, 'published.seq'),
      publishTimeoutMs: 500,
      backoff: { initialMs: 20, maxMs: 500 },
      ...extra,
    }),
  };
  t.after(async () => {
    for (const nc of connections) await nc.close().catch(() => undefined);
    await outbox.close().catch(() => undefined);
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  await ensureEventsStream(await jetstreamManager(await r.connectClient()), duplicateWindowMs === undefined ? {} : { duplicateWindowMs });
  return r;
}

/** Appends 200 activations × 3 events, activations running concurrently; returns what was stored. */
async function burst(outbox: EmbeddedEventLog, onRound?: (round: number) => Promise<void>): Promise<StoredEvent[]> {
  const stored: StoredEvent[] = [];
  for (let round = 0; round < 3; round++) {
    const appended = await Promise.all(TICKERS.map((ticker) => outbox.append(coinStream(ticker), [activation(ticker)[round]!])));
    stored.push(...appended.flat());
    await onRound?.(round);
  }
  return stored;
}

/** Every event of the outbox is in the stream once, and each aggregate's events are in order. */
async function assertExactlyOnce(nc: NatsConnection, outboxEvents: readonly StoredEvent[]): Promise<void> {
  const inStream: StoredEvent[] = [];
  for await (const e of readEvents(jetstream(nc), nodeEventsFilter(NODE))) inStream.push(e);
  const count = new Map<string, number>();
  for (const e of inStream) count.set(e.metadata.eventId, (count.get(e.metadata.eventId) ?? 0) + 1);
  assert.deepEqual([...new Set(count.values())], [1], 'no event id twice');
  assert.equal(inStream.length, outboxEvents.length, 'nothing lost');
  for (const e of outboxEvents) assert.equal(count.get(e.metadata.eventId), 1, `${e.metadata.eventId} present`);
  const perAggregate = new Map<string, number[]>();
  for (const e of inStream) perAggregate.set(e.metadata.stream, [...(perAggregate.get(e.metadata.stream) ?? []), e.metadata.streamSeq]);
  assert.equal(perAggregate.size, TICKERS.length);
  for (const [stream, seqs] of perAggregate) assert.deepEqual(seqs, [1, 2, 3], `${stream} in order`);
  const info = await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM);
  assert.equal(info.state.messages, outboxEvents.length);
}

test('nats-server killed mid-burst of 200 activations: every event once, in order; old-mark restart adds nothing', async (t) => {
  const r = await rig(t);
  const nc = await r.connectClient();
  let publisher: OutboxPublisher = await startOutboxPublisher(r.publisherOptions(nc));
  let killedAt = 0;
  let appendWhileDownMs = 0;
  const events = await burst(r.outbox, async (round) => {
    if (round !== 0) return;
    await until('part of the burst is published', () => publisher.published() >= 100);
    await r.server.kill();
    killedAt = Date.now();
  });
  appendWhileDownMs = Date.now() - killedAt;
  assert.ok(publisher.published() < events.length, 'the kill happened before the burst was published');
  await new Promise((res) => setTimeout(res, 300)); // NATS stays down a while; the outbox holds the rest
  const lagWhileDown = publisher.lagEvents();
  const restartedAt = Date.now();
  await r.server.restart();
  await publisher.whenCaughtUp();
  const catchUpMs = Date.now() - restartedAt;
  t.diagnostic(
    `burst of ${events.length} events; killed after ${events.length - lagWhileDown} published; 400 appended while down in ` +
      `${appendWhileDownMs} ms; caught up ${catchUpMs} ms after restart (lag ${lagWhileDown})`,
  );
  assert.equal(publisher.published(), events.length);
  assert.equal(publisher.failure(), undefined);
  await assertExactlyOnce(nc, events);

  await publisher.stop();
  await writeFile(join(r.dir, 'published.seq'), '0\n'); // a crash long before the last mark save
  const restartedFrom0 = Date.now();
  publisher = await startOutboxPublisher(r.publisherOptions(nc));
  await publisher.whenCaughtUp();
  t.diagnostic(`republishing from mark 0 (all skipped or deduped): ${Date.now() - restartedFrom0} ms`);
  await publisher.stop();
  await assertExactlyOnce(nc, events);
});

test('beyond the duplicate window, a publisher restarted from an old mark publishes no duplicates', async (t) => {
  const r = await rig(t, 1_000);
  const nc = await r.connectClient();
  const first = await startOutboxPublisher(r.publisherOptions(nc));
  const events = await burst(r.outbox);
  await first.whenCaughtUp();
  await first.stop();
  await writeFile(join(r.dir, 'published.seq'), '150\n');
  await new Promise((res) => setTimeout(res, 1_200)); // the stream forgets the msg ids
  const second = await startOutboxPublisher(r.publisherOptions(nc));
  await second.whenCaughtUp();
  await second.stop();
  await assertExactlyOnce(nc, events);
});

test('a connection nats.js gave up on is replaced through connect(), and publishing resumes', async (t) => {
  const r = await rig(t);
  const fragile = await r.connectClient({ maxReconnectAttempts: 1, reconnectTimeWait: 20 });
  const publisher = await startOutboxPublisher(r.publisherOptions(fragile, { connect: () => r.connectClient() }));
  const events = await burst(r.outbox, async (round) => {
    if (round !== 1) return;
    await r.server.kill();
    await until('nats.js gives up', () => fragile.isClosed(), 5_000);
  });
  await r.server.restart();
  await publisher.whenCaughtUp();
  assert.equal(publisher.failure(), undefined);
  await publisher.stop();
  await assertExactlyOnce(await r.connectClient(), events);
});

test('started while NATS is unreachable (its connection still pending), it publishes once NATS is up', async (t) => {
  const r = await rig(t);
  await r.server.kill();
  const publisher = await startOutboxPublisher(r.publisherOptions(r.connectClient({ waitOnFirstConnect: true })));
  const events = await burst(r.outbox); // the service goes on meanwhile
  assert.equal(publisher.lagEvents(), events.length);
  await r.server.restart();
  await publisher.whenCaughtUp();
  await publisher.stop();
  await assertExactlyOnce(await r.connectClient(), events);
});

test('a publisher process SIGKILLed mid-pipeline, restarted from its mark after the duplicate window: every event once, each aggregate in order', async (t) => {
  const r = await rig(t, 1_000);
  const nc = await r.connectClient();
  const events: StoredEvent[] = [];
  for (let round = 0; round < 3; round++) {
    for (const ticker of TICKERS) events.push(...(await r.outbox.append(coinStream(ticker), [activation(ticker)[round]!])));
  }
  await r.outbox.close(); // the child takes the log over
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, '../../devnet/testkits/outboxPublisherProcess.ts'), r.server.url, r.dir, NODE], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((res) => child.once('exit', res));
  t.after(() => void child.kill('SIGKILL'));
  const jsm = await jetstreamManager(nc);
  const stored = async () => (await jsm.streams.info(EVENTS_STREAM)).state.messages;
  const deadline = Date.now() + 20_000;
  while ((await stored()) < 300) {
    if (Date.now() > deadline) throw new Error('the child never published');
    await new Promise((res) => setTimeout(res, 2));
  }
  child.kill('SIGKILL');
  await exited;
  const atKill = await stored();
  const mark = Number((await readFile(join(r.dir, 'published.seq'), 'utf8').catch(() => '0')).trim());
  t.diagnostic(`killed with ${atKill} of ${events.length} events in the stream, mark ${mark}`);
  assert.ok(atKill < events.length, 'killed before the end');
  assert.ok(mark < atKill, 'events beyond the mark were in the stream (published ahead of an unconfirmed one)');
  await new Promise((res) => setTimeout(res, 1_200)); // the stream forgets the msg ids: only the subject check stands
  const outbox = await EmbeddedEventLog.open({ dir: r.dir, sessionId: 'session-2', nodeId: NODE });
  t.after(() => outbox.close());
  const publisher = await startOutboxPublisher({ ...r.publisherOptions(nc), outbox });
  await publisher.whenCaughtUp();
  assert.equal(publisher.failure(), undefined);
  await publisher.stop();
  await assertExactlyOnce(nc, events);
});
