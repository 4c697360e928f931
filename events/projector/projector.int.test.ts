import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { startNatsServer, type NatsServer } from '../../devnet/nats/natsServer.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import type { CoinStatus } from '../projections/coinStatus.ts';
import { EventScript } from '../../devnet/testkits/eventScript.ts';
import { StatusState, statusDigest } from '../projections/statusState.ts';
import { activation, busyNode } from '../../devnet/testkits/statusScenario.ts';
import { TaskStatusProjection } from '../projections/taskStatus.ts';
import type { TaskStatusValue } from '../projections/taskStatusValue.ts';
import { ALL_EVENTS_FILTER, nodeEventsFilter, startProjector, type Projector } from './projector.ts';
import { StatusWriter } from './projectorApply.ts';
import { ensureProjectorConsumer } from './projectorConsumer.ts';
import { decodeForProjection } from './projectorMessage.ts';
import { connectForever, ensureTestStream, publishEvents } from '../../devnet/testkits/projectorTestkit.ts';
import { openStatusKv, readStatus, snapshotStatusKv } from './statusKv.ts';
import { EVENTS_STREAM, STATUS_BUCKET, statusKey } from '../jetstream/subjects.ts';
import type { StoredEvent } from '../../spec/events.ts';

let server: NatsServer;
let nc: NatsConnection;
let kv: KV;

/** Fresh stream, bucket and consumers for each test. */
async function reset(): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const name of [EVENTS_STREAM, `KV_${STATUS_BUCKET}`]) await jsm.streams.delete(name).catch(() => false);
  await ensureTestStream(nc);
  kv = await openStatusKv(nc);
}

function replayed(events: readonly StoredEvent[]): StatusState {
  const state = new StatusState();
  for (const e of events) state.apply(e, e.metadata.nodeId!);
  return state;
}

async function kvDigest(): Promise<string> {
  return statusDigest(await snapshotStatusKv(kv));
}

async function withProjector<T>(options: Partial<Parameters<typeof startProjector>[0]>, body: (p: Projector) => Promise<T>): Promise<T> {
  const p = await startProjector({ nc, ackWaitMs: 2_000, pollMs: 100, ...options });
  try {
    return await body(p);
  } finally {
    await p.stop();
  }
}

describe('projector (real nats-server)', () => {
  before(async () => {
    server = await startNatsServer();
    nc = await connectForever(server.url);
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  test('builds the KV from the stream: coins, tasks, session resets; it matches a replay', async () => {
    await reset();
    const s = busyNode('node-1');
    await publishEvents(nc, s.events);
    await withProjector({}, async (p) => {
      await p.whenCaughtUp();
      assert.deepEqual(p.lag(), { events: 0, ms: 0 });
    });
    assert.equal(await kvDigest(), replayed(s.events).digest());
    const coin = async (t: string) => (await readStatus(kv, statusKey('node-1', `coin.${t}`)))?.value as CoinStatus;
    const eth = await coin('ETH');
    assert.equal(eth.state, 'active');
    assert.deepEqual(eth.balances, { ETH: { spendable: '1.5', unspendable: '0' }, 'USDT-ERC20': { spendable: '10.25', unspendable: '0' } });
    assert.equal((await coin('BNB')).state, 'inactive');
    const task = async (id: number) => (await readStatus(kv, statusKey('node-1', `task.${id}`)))?.value as TaskStatusValue;
    const projection = new TaskStatusProjection();
    for (const e of s.events) projection.apply(e);
    for (const id of [1, 3, 4]) {
      const { status, details } = await task(id);
      assert.deepEqual({ status, details }, JSON.parse(JSON.stringify(renderTaskStatus(projection.get(id)!))));
    }
    assert.equal((await task(0)).status, 'Forgotten');
    assert.equal((await task(2)).status, 'Cancelled');
  });

  test('step by step: active with balances, task Ok as the RPC renders it, passive, disabled, a new session', async () => {
    await reset();
    const a = new EventScript('a');
    const b = new EventScript('b');
    await publishEvents(nc, [a.session(), b.session()]);
    await withProjector({}, async (p) => {
      const coin = async (node: string, t: string) => (await readStatus(kv, statusKey(node, `coin.${t}`)))?.value as CoinStatus | undefined;
      const step = async (...events: StoredEvent[]) => {
        await publishEvents(nc, events);
        await p.whenCaughtUp();
      };
      await step(
        a.task(0, { type: 'TaskCreated', data: { taskId: 0, ticker: 'ETH', tokens: ['USDT-ERC20'], keyPolicy: 'ContextPrivKey', getBalances: true } }),
        a.coin('ETH', { type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'task::enable_eth', tokens: ['USDT-ERC20'], getBalances: true, attempt: 1 } }),
      );
      assert.equal((await coin('a', 'ETH'))?.state, 'activating');
      const taskKey = statusKey('a', 'task.0');
      assert.deepEqual((await readStatus(kv, taskKey))?.value, {
        status: 'InProgress', details: 'ActivatingCoin', nodeId: 'a', taskId: 0, kind: 'enable_eth', ticker: 'ETH', getBalances: true, sessionId: a.sessionId, lastSeq: 2, updatedAt: a.events[1]!.metadata.time,
      });
      await step(
        a.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) }),
        a.task(0, { type: 'TaskSucceeded', data: { taskId: 0, activation: activation('ETH', ['USDT-ERC20']) } }),
        b.coin('ETH', { type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'enable_eth_with_tokens', tokens: [], getBalances: false, attempt: 1 } }),
        b.coin('ETH', { type: 'CoinActivated', data: activation('ETH', [], { noBalances: true }) }),
      );
      const active = await coin('a', 'ETH');
      assert.equal(active?.state, 'active');
      assert.equal(active?.address, '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d');
      assert.equal(active?.currentBlock, 1234);
      assert.deepEqual(active?.balances, { ETH: { spendable: '1.5', unspendable: '0' }, 'USDT-ERC20': { spendable: '10.25', unspendable: '0' } });
      assert.equal((await coin('b', 'ETH'))?.balances, undefined, 'b read no balances');
      const projection = new TaskStatusProjection();
      for (const e of a.events) projection.apply(e);
      const ok = (await readStatus(kv, taskKey))?.value as TaskStatusValue;
      assert.equal(ok.status, 'Ok');
      assert.deepEqual({ status: ok.status, details: ok.details }, JSON.parse(JSON.stringify(renderTaskStatus(projection.get(0)!))));

      await step(a.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } }));
      assert.equal((await coin('a', 'ETH'))?.state, 'passive');
      await step(a.coin('ETH', { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: ['USDT-ERC20'] } }));
      const disabled = await coin('a', 'ETH');
      assert.equal(disabled?.state, 'inactive');
      assert.equal(disabled?.address, undefined);

      await step(b.session());
      assert.equal((await coin('b', 'ETH'))?.state, 'inactive', "b's new session resets b's coins");
      assert.equal((await coin('b', 'ETH'))?.address, undefined);
      assert.equal((await coin('a', 'ETH'))?.sessionId, a.sessionId, "and leaves a's alone");
      assert.equal(await kvDigest(), replayed([...a.events, ...b.events]).digest());
    });
  });

  test('idempotent: duplicates and a full redelivery from seq 1 change nothing', async () => {
    await reset();
    const s = busyNode('n');
    await publishEvents(nc, s.events);
    const expected = replayed(s.events).digest();
    await withProjector({ durableName: 'first' }, async (p) => {
      await p.whenCaughtUp();
      assert.ok(p.stats().keysWritten > 0);
    });
    assert.equal(await kvDigest(), expected);
    // The publisher re-sends (new msg ids, past the dedupe window): duplicates in the stream.
    await publishEvents(nc, s.events.slice(10, 20), { msgId: (e) => `${e.metadata.eventId}-again` });
    await publishEvents(nc, s.events.slice(0, 5), { msgId: (e) => `${e.metadata.eventId}-again` });
    await withProjector({ durableName: 'first' }, async (p) => {
      await p.whenCaughtUp();
      assert.equal(p.stats().keysWritten, 0, 'every duplicate skipped');
      assert.equal(p.stats().messages, 15);
    });
    // A new consumer redelivers everything, duplicates included.
    await withProjector({ durableName: 'second' }, async (p) => {
      await p.whenCaughtUp();
      assert.equal(p.stats().keysWritten, 0);
      assert.equal(p.stats().messages, s.events.length + 15);
    });
    assert.equal(await kvDigest(), expected);
  });

  test('two projectors of one set, and a restart mid-stream, give the KV of a replay', async () => {
    await reset();
    const nodes = ['n1', 'n2', 'n3'].map((n) => busyNode(n));
    const all = nodes.flatMap((n) => n.events);
    const second = await connectForever(server.url, 'second');
    try {
      const p1 = await startProjector({ nc, ackWaitMs: 2_000, pollMs: 100 });
      const p2 = await startProjector({ nc: second, ackWaitMs: 2_000, pollMs: 100 });
      // Three nodes publish concurrently, interleaved in the stream.
      await Promise.all(nodes.map((n) => publishEvents(nc, n.events)));
      await p1.whenCaughtUp();
      const shares = [p1.stats().messages, p2.stats().messages];
      assert.equal(shares[0]! + shares[1]!, all.length);
      assert.equal(await kvDigest(), replayed(all).digest());
      // One stops mid-stream; the other carries on; a third joins later.
      const more = nodes.map((n) => {
        n.session();
        n.coin('ETH', { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } });
        return n.events.slice(-2);
      });
      const publishing = Promise.all(more.map((events) => publishEvents(nc, events)));
      await p1.stop();
      const p3 = await startProjector({ nc, ackWaitMs: 2_000, pollMs: 100 });
      await publishing;
      await p3.whenCaughtUp();
      await Promise.all([p2.stop(), p3.stop()]);
      assert.equal(await kvDigest(), replayed(nodes.flatMap((n) => n.events)).digest());
    } finally {
      await second.close();
    }
  });

  test('a filtered projector projects one node only', async () => {
    await reset();
    const a = busyNode('a');
    const b = busyNode('b');
    await publishEvents(nc, [...a.events, ...b.events]);
    await withProjector({ durableName: 'only-a', filter: nodeEventsFilter('a') }, (p) => p.whenCaughtUp());
    const keys = [...(await snapshotStatusKv(kv)).keys()];
    assert.ok(keys.length > 0 && keys.every((k) => k.startsWith('a.')), keys.join());
    assert.equal(await kvDigest(), replayed(a.events).digest());
  });

  test('survives a nats-server kill and restart, and catches up', async () => {
    await reset();
    const s = busyNode('n');
    const extra = busyNode('m');
    await publishEvents(nc, s.events.slice(0, 12));
    const p = await startProjector({ nc, ackWaitMs: 2_000, pollMs: 100 });
    try {
      const publishing = publishEvents(nc, s.events.slice(12));
      await server.kill();
      await new Promise((r) => setTimeout(r, 300));
      await server.restart();
      await publishing;
      await publishEvents(nc, extra.events);
      await p.whenCaughtUp();
      assert.equal(await kvDigest(), replayed([...s.events, ...extra.events]).digest());
      assert.equal(p.lag().events, 0);
    } finally {
      await p.stop();
    }
  });

  test('a projector that died between its KV write and its ack: the message is redelivered and skipped', async () => {
    await reset();
    const s = busyNode('n');
    await publishEvents(nc, s.events);
    const durableName = 'crashy';
    await ensureProjectorConsumer(await jetstreamManager(nc), { durableName, filter: ALL_EVENTS_FILTER, ackWaitMs: 2_000 });
    const first = await jetstream(nc).consumers.get(EVENTS_STREAM, durableName).then((c) => c.next());
    assert.ok(first !== null);
    const decoded = decodeForProjection(first.subject, first.data);
    assert.ok(decoded.ok);
    assert.equal(await new StatusWriter(kv).project(decoded.event, decoded.nodeId), 0, 'a session start with no coins yet writes nothing');
    const second = await jetstream(nc).consumers.get(EVENTS_STREAM, durableName).then((c) => c.next({ expires: 1_000 }));
    assert.equal(second, null, 'one message in flight at a time: nothing more until the first is acked');
    // ... and it never will be: the "crashed" projector's message comes back after ack_wait.
    const started = Date.now();
    await withProjector({ durableName }, async (p) => {
      await p.whenCaughtUp();
      assert.equal(p.stats().messages, s.events.length, 'the unacknowledged message was redelivered');
    });
    assert.ok(Date.now() - started >= 500);
    assert.equal(await kvDigest(), replayed(s.events).digest());
  });

  test('lag: reported while behind (events and age), zero once caught up, small while following', async (t) => {
    await reset();
    const backlog = ['x1', 'x2', 'x3', 'x4'].flatMap((n) => busyNode(n).events);
    await publishEvents(nc, backlog);
    await new Promise((r) => setTimeout(r, 150));
    await withProjector({ pollMs: 20 }, async (p) => {
      let maxEvents = 0;
      let maxMs = 0;
      let caughtUp = false;
      const done = p.whenCaughtUp().then(() => (caughtUp = true));
      while (!caughtUp) {
        const lag = p.lag();
        maxEvents = Math.max(maxEvents, lag.events);
        maxMs = Math.max(maxMs, lag.ms);
        await new Promise((r) => setTimeout(r, 2));
      }
      await done;
      t.diagnostic(`backlog of ${backlog.length}: max lag seen ${maxEvents} events, ${maxMs} ms`);
      assert.ok(maxEvents > 0 && maxEvents <= backlog.length, `events ${maxEvents}`);
      assert.ok(maxMs >= 150, `the oldest event waited at least 150 ms (${maxMs})`);
      await new Promise((r) => setTimeout(r, 60));
      assert.deepEqual(p.lag(), { events: 0, ms: 0 });

      // Following live: time from publish ack to the key showing the event.
      const live = new EventScript('live');
      const delays: number[] = [];
      await publishEvents(nc, [live.session()]);
      for (let i = 1; i <= 20; i++) {
        const e = live.coin('ETH', { type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'enable_eth_with_tokens', tokens: [], getBalances: false, attempt: i } });
        const sent = Date.now();
        await publishEvents(nc, [e]);
        while (((await readStatus(kv, statusKey('live', 'coin.ETH')))?.value?.lastSeq ?? 0) < e.metadata.seq) await new Promise((r) => setTimeout(r, 1));
        delays.push(Date.now() - sent);
      }
      delays.sort((a, b) => a - b);
      // How fast is a benchmark's question (npm run bench); here it is only reported.
      t.diagnostic(`publish → KV: median ${delays[10]} ms, max ${delays.at(-1)} ms`);
      assert.equal(delays.length, 20);
    });
  });

  test('compare-and-set: a writer with a stale view can neither roll a key back nor lose an event', async () => {
    await reset();
    const s = new EventScript('n');
    const key = statusKey('n', 'coin.ETH');
    const e1 = s.coin('ETH', { type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'x', tokens: ['USDT-ERC20'], getBalances: true, attempt: 1 } });
    const e2 = s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) });
    const e3 = s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });
    const e4 = s.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: [] } });
    const stale = new StatusWriter(kv);
    const fresh = new StatusWriter(kv);
    assert.equal(await stale.project(e1, 'n'), 1);
    assert.equal(await fresh.project(e2, 'n'), 1);
    assert.equal(await fresh.project(e3, 'n'), 1);
    assert.equal(await stale.project(e2, 'n'), 0, 'its write at the old revision fails; re-read, it is a duplicate');
    assert.equal(await stale.project(e1, 'n'), 0);
    assert.equal(await stale.project(e4, 'n'), 1, 'a new event applies on top of the current value');
    const value = (await readStatus(kv, key))?.value as CoinStatus;
    assert.equal(value.lastSeq, e4.metadata.seq);
    assert.equal(value.state, 'passive');
    assert.deepEqual(value.tokens, [], 'the token disabled by the other writer stays disabled');
    assert.equal(await kvDigest(), replayed(s.events).digest());
  });

  test('the stream deleted and recreated under a running projector: its consumer is recreated', async () => {
    await reset();
    const a = busyNode('a');
    const b = busyNode('b');
    await publishEvents(nc, a.events);
    await withProjector({}, async (p) => {
      await p.whenCaughtUp();
      await (await jetstreamManager(nc)).streams.delete(EVENTS_STREAM);
      await new Promise((r) => setTimeout(r, 300));
      await ensureTestStream(nc);
      await publishEvents(nc, b.events);
      await p.whenCaughtUp();
    });
    assert.equal(await kvDigest(), replayed([...a.events, ...b.events]).digest(), "a's keys stay; b's are projected");
  });
});
