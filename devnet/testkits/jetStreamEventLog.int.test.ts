import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { DomainEvent, StoredEvent } from '../../spec/events.ts';
import { startNatsServer, type NatsServer } from '../nats/natsServer.ts';
import { coinStream, NODE_STREAM } from '../../events/log/eventLog.ts';
import { ensureEventsStream } from '../../events/jetstream/ensureStream.ts';
import { JetStreamEventLog } from './jetStreamEventLog.ts';
import { InterleavedWriteError, publishEvent } from '../../events/jetstream/streamOps.ts';
import { EVENTS_STREAM, eventSubject } from '../../events/jetstream/subjects.ts';

const disabled = (ticker: string): DomainEvent => ({ type: 'CoinDisabled', data: { ticker, tokens: [] } });

async function withServer(t: { after(fn: () => Promise<void>): void }): Promise<{ server: NatsServer; nc: NatsConnection }> {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
  t.after(async () => {
    await nc.close().catch(() => undefined);
    await server.stop();
  });
  await ensureEventsStream(await jetstreamManager(nc));
  return { server, nc };
}

async function readAll(log: JetStreamEventLog): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read()) out.push(e);
  return out;
}

test('each event is one message on its aggregate subject with Nats-Msg-Id = event id', async (t) => {
  const { nc } = await withServer(t);
  const log = await JetStreamEventLog.open({ nc, nodeId: 'node.1', sessionId: 's1' });
  const [started] = await log.append(NODE_STREAM, [{ type: 'SessionStarted', data: { sessionId: 's1', version: '1', derivationMethod: 'Iguana' } }]);
  const [eth] = await log.append(coinStream('ETH'), [disabled('ETH')]);
  const jsm = await jetstreamManager(nc);
  const msg = await jsm.streams.getMessage(EVENTS_STREAM, { seq: eth!.metadata.seq });
  assert.equal(msg?.subject, 'activation.events.node=2E1.coin.ETH');
  assert.equal(msg?.header.get('Nats-Msg-Id'), eth!.metadata.eventId);
  assert.deepEqual(msg?.json(), eth, 'the body is the stored event');
  const node = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: eventSubject('node.1', NODE_STREAM) });
  assert.equal(node?.subject, 'activation.events.node=2E1.node');
  assert.deepEqual(node?.json<StoredEvent>().metadata, { ...started!.metadata, nodeId: 'node.1' });
  await log.close();
});

test('a second writer on the same aggregate is refused with InterleavedWriteError, then the log re-syncs', async (t) => {
  const { nc } = await withServer(t);
  const a = await JetStreamEventLog.open({ nc, nodeId: 'n', sessionId: 'a' });
  const b = await JetStreamEventLog.open({ nc, nodeId: 'n', sessionId: 'b' });
  await a.append(coinStream('ETH'), [disabled('ETH')]);
  await b.append(coinStream('ETH'), [disabled('ETH')]); // b looks the subject up: continues at streamSeq 2
  await assert.rejects(a.append(coinStream('ETH'), [disabled('ETH')]), (e: unknown) => {
    assert.ok(e instanceof InterleavedWriteError);
    assert.match(e.message, /another writer appended to activation\.events\.n\.coin\.ETH/);
    return true;
  });
  const [next] = await a.append(coinStream('ETH'), [disabled('ETH')]); // looked up afresh
  assert.equal(next!.metadata.streamSeq, 3);
  assert.deepEqual((await readAll(a)).map((e) => [e.metadata.sessionId, e.metadata.streamSeq]), [['a', 1], ['b', 2], ['a', 3]]);
  await a.close();
  await b.close();
});

test('nodes share the stream but each log reads only its own events, at their stream positions', async (t) => {
  const { nc } = await withServer(t);
  const one = await JetStreamEventLog.open({ nc, nodeId: 'one', sessionId: 's1' });
  const two = await JetStreamEventLog.open({ nc, nodeId: 'two', sessionId: 's2' });
  await one.append(coinStream('ETH'), [disabled('ETH')]);
  await two.append(coinStream('ETH'), [disabled('ETH'), disabled('ETH')]);
  await one.append(coinStream('ETH'), [disabled('ETH')]);
  assert.deepEqual((await readAll(one)).map((e) => [e.metadata.seq, e.metadata.streamSeq, e.metadata.nodeId]), [[1, 1, 'one'], [4, 2, 'one']]);
  assert.deepEqual((await readAll(two)).map((e) => [e.metadata.seq, e.metadata.streamSeq]), [[2, 1], [3, 2]]);
  assert.equal(one.lastSeq, 4);
  assert.equal(two.lastSeq, 3);
  const reopened = await JetStreamEventLog.open({ nc, nodeId: 'two', sessionId: 's3' });
  assert.equal(reopened.lastSeq, 3);
  await Promise.all([one.close(), two.close(), reopened.close()]);
});

test('streamSeq continues after events another publisher (the outbox) put on the subject', async (t) => {
  const { nc } = await withServer(t);
  const subject = eventSubject('n', coinStream('BTC'));
  const outboxed = { ...disabled('BTC'), metadata: { eventId: 'e-1', seq: 1, stream: 'coin.BTC', streamSeq: 41, sessionId: 'old', nodeId: 'n', time: new Date().toISOString() } };
  await publishEvent(jetstream(nc), subject, JSON.stringify(outboxed), 'e-1', 0, 1_000);
  const log = await JetStreamEventLog.open({ nc, nodeId: 'n', sessionId: 'new' });
  const [next] = await log.append(coinStream('BTC'), [disabled('BTC')]);
  assert.deepEqual([next!.metadata.seq, next!.metadata.streamSeq], [2, 42]);
  await log.close();
});

test('an append during a short NATS outage is retried with the same id and lands once', async (t) => {
  const { server, nc } = await withServer(t);
  const log = await JetStreamEventLog.open({ nc, nodeId: 'n', sessionId: 's', publishTimeoutMs: 300, backoff: { initialMs: 20, maxMs: 200 } });
  await log.append(coinStream('ETH'), [disabled('ETH')]);
  await server.kill();
  const pending = log.append(coinStream('ETH'), [disabled('ETH'), disabled('ETH')]);
  await new Promise((r) => setTimeout(r, 400));
  await server.restart();
  const stored = await pending;
  assert.deepEqual(stored.map((e) => e.metadata.streamSeq), [2, 3]);
  assert.deepEqual((await readAll(log)).map((e) => [e.metadata.seq, e.metadata.streamSeq]), [[1, 1], [2, 2], [3, 3]]);
  await log.close();
});
