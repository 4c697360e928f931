import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { TEST_PASSWORD, enableEthParams, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { SseClient, type SseFrame } from '../../devnet/testing/sseClient.ts';
import { startTask, untilFinished } from '../../devnet/testing/tasks.ts';
import { storedEventSchema, type StoredEvent } from '../../spec/events.ts';

/**
 * `GET /events` over real HTTP (docs/streaming.md): every domain event as on NATS, filters, the
 * RPC password and its lockout, ready and heartbeat frames, the slow-client policy, CORS, and a
 * password that never reaches a log.
 */

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }] });
});
after(() => devnet.stop());

const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
const eventsUrl = (s: Stack, query = '') => `${s.service.url}/events${query}`;
const events = (client: SseClient): StoredEvent[] => client.frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data));
const typeOf = (type: string) => (f: SseFrame) => f.event === type;

async function logged(s: Stack): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for await (const e of s.service.log.read()) all.push(e);
  return all;
}

describe('/events: the domain events, filtered', () => {
  test('frames are event: <Type>, id: <seq>, data: <the event as on NATS>; coin, task and type filters', async () => {
    const s = await startStack({ devnet, tron: true });
    try {
      const all = await SseClient.connect(eventsUrl(s), { headers: bearer });
      const usdt = await SseClient.connect(eventsUrl(s, '?coin=USDT-ERC20'), { headers: bearer });
      const trx = await SseClient.connect(eventsUrl(s, '?coin=TRX'), { headers: bearer });
      const typed = await SseClient.connect(eventsUrl(s, '?type=CoinActivated&type=TaskSucceeded'), { headers: bearer });
      await Promise.all([all, usdt, trx, typed].map((c) => c.waitFor(typeOf('ready'))));
      const start = s.service.log.lastSeq;

      const taskId = await startTask(s, enableEthParams(s, ['USDT-ERC20']));
      await untilFinished(s, taskId);
      const taskOnly = await SseClient.connect(eventsUrl(s, `?task=${taskId}&type=TaskProgressed`), { headers: { ...bearer, 'last-event-id': String(start) } });
      const trxAnswer = await s.v2('enable_eth_with_tokens', enableTrxParams(s, []));
      assert.equal(trxAnswer.status, 200, JSON.stringify(trxAnswer.body));
      await all.waitFor((f) => f.event === 'CoinActivated' && JSON.parse(f.data).data.ticker === 'TRX');

      const log = (await logged(s)).filter((e) => e.metadata.seq > start);
      // Unfiltered: every event, in log order, each frame exactly the NATS body (encodeEventBody).
      const frames = all.frames.filter((f) => f.id !== undefined);
      assert.deepEqual(frames.map((f) => f.data), log.map((e) => JSON.stringify(e)));
      assert.deepEqual(frames.map((f) => [f.event, Number(f.id)]), log.map((e) => [e.type, e.metadata.seq]));
      for (const e of events(all)) assert.ok(storedEventSchema.check(e));

      // coin=USDT-ERC20: the task activating it (platform ETH with the token) and ETH's activation, nothing of TRX.
      const usdtTypes = events(usdt).map((e) => e.type);
      assert.ok(usdtTypes.includes('TaskCreated') && usdtTypes.includes('TaskSucceeded') && usdtTypes.includes('CoinActivated'), usdtTypes.join());
      assert.ok(events(usdt).every((e) => e.metadata.stream !== 'coin.TRX'));
      // coin=TRX: only TRX's activation.
      await trx.waitFor(typeOf('CoinActivated'));
      assert.ok(events(trx).length > 0 && events(trx).every((e) => e.metadata.stream === 'coin.TRX'), trx.describe());
      // type=: only those types (values of one key are alternatives).
      await typed.waitFor((f) => f.event === 'CoinActivated' && JSON.parse(f.data).data.ticker === 'TRX');
      assert.deepEqual(events(typed).map((e) => e.type), log.filter((e) => e.type === 'CoinActivated' || e.type === 'TaskSucceeded').map((e) => e.type));
      // task= and type= together (keys combine), replayed from the log after Last-Event-ID.
      await taskOnly.waitFor((f) => f.event === 'TaskProgressed' && JSON.parse(f.data).data.details === 'Finishing');
      assert.deepEqual(events(taskOnly).map((e) => e.data), log.filter((e) => e.type === 'TaskProgressed').map((e) => e.data));

      for (const [query, pattern] of [
        ['?type=Nope', /type: "Nope" is not an event type \(one of SessionStarted, /],
        ['?task=x', /task: "x" is not a task id/],
        ['?coin=a%20b', /coin: "a b" is not a ticker/],
        ['?since=1', /unknown query parameter "since"/],
      ] as const) {
        const refused = await SseClient.open(eventsUrl(s, query), { headers: bearer });
        assert.ok(!(refused instanceof SseClient));
        assert.equal(refused.status, 400);
        assert.match(JSON.parse(refused.body).error, pattern);
      }
      for (const c of [all, usdt, trx, typed, taskOnly]) c.close();
    } finally {
      await s.stop();
    }
  });

  test('ready at once and a heartbeat every interval on the service clock, both with data and without id', async () => {
    const clock = new ManualClock(Date.now());
    const s = await startStack({ devnet, clock, config: { event_streaming_configuration: { heartbeat_interval_s: 20 } } });
    try {
      const client = await SseClient.connect(eventsUrl(s), { headers: bearer });
      const ready = await client.waitFor(typeOf('ready'));
      assert.deepEqual(JSON.parse(ready.data), { _type: 'READY', message: { last_seq: s.service.log.lastSeq } });
      clock.advance(19_999);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(client.frames.filter(typeOf('heartbeat')).length, 0);
      clock.advance(1);
      const beat = await client.waitFor(typeOf('heartbeat'));
      assert.equal(beat.id, undefined);
      assert.deepEqual(JSON.parse(beat.data), { _type: 'HEARTBEAT', message: {} });
      clock.advance(20_000);
      await client.waitFor((f) => client.frames.filter(typeOf('heartbeat')).length === 2 && f.event === 'heartbeat');
      client.close();
    } finally {
      await s.stop();
    }
  });

  test('a slow client is closed with a final overflow frame and resumes by Last-Event-ID with nothing lost or repeated', async () => {
    const s = await startStack({ devnet, config: { event_streaming_configuration: { max_buffered_bytes: 1024 } } });
    try {
      const slow = await SseClient.connect(eventsUrl(s, '?type=SessionStarted'), { headers: bearer });
      await slow.waitFor(typeOf('ready'));
      slow.pause();
      // 300 events of 64 KiB: far more than the socket buffers hold while the client reads nothing.
      const big = 'x'.repeat(65_536);
      const written = await s.service.log.append('node', Array.from({ length: 300 }, (_, i) => ({ type: 'SessionStarted' as const, data: { sessionId: `bulk-${i}`, version: big, derivationMethod: 'Iguana' } })));
      slow.resume();
      await slow.ended;
      const overflow = slow.frames.at(-1)!;
      assert.equal(overflow.event, 'overflow');
      assert.equal(overflow.id, undefined);
      const before = events(slow);
      assert.ok(before.length < 300, `closed after ${before.length}`);
      assert.deepEqual(JSON.parse(overflow.data).message.last_event_id, Number(slow.lastEventId));
      assert.equal(s.service.streams.clientCount(), 0);

      const resumed = await SseClient.connect(eventsUrl(s, '?type=SessionStarted'), { headers: { ...bearer, 'last-event-id': slow.lastEventId! } });
      await resumed.waitFor((f) => f.id === String(written.at(-1)!.metadata.seq));
      const ids = [...before, ...events(resumed)].map((e) => e.metadata.seq);
      assert.deepEqual(ids, written.map((e) => e.metadata.seq));
      resumed.close();
    } finally {
      await s.stop();
    }
  });
});

describe('/events and /event-stream: authentication and CORS', () => {
  test('Bearer header or userpass parameter; none → 401, wrong → 403, counted by the RPC\'s own lockout', async () => {
    const s = await startStack({ devnet });
    try {
      for (const path of ['/events', '/event-stream']) {
        const viaHeader = await SseClient.connect(`${s.service.url}${path}`, { headers: bearer });
        const viaQuery = await SseClient.connect(`${s.service.url}${path}?userpass=${encodeURIComponent(TEST_PASSWORD)}`);
        await Promise.all([viaHeader.waitFor(typeOf('ready')), viaQuery.waitFor(typeOf('ready'))]);
        viaHeader.close();
        viaQuery.close();
        const none = await SseClient.open(`${s.service.url}${path}`);
        assert.ok(!(none instanceof SseClient));
        assert.equal(none.status, 401);
        assert.equal(none.headers['www-authenticate'], 'Bearer');
        assert.equal(JSON.parse(none.body).error_type, 'UserpassIsNotSet');
      }
      const rpcWrong = await s.post({ mmrpc: '2.0', userpass: 'wrong', method: 'task::enable_eth::status', params: { task_id: 0 } });
      assert.deepEqual(rpcWrong.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 });
      // The stream's wrong passwords share the RPC's count: 8, 7, … 0, in both forms.
      for (let left = 8; left >= 0; left--) {
        const wrong = await SseClient.open(left % 2 === 0 ? `${s.service.url}/events` : `${s.service.url}/event-stream?userpass=wrong`, {
          headers: left % 2 === 0 ? { authorization: 'Bearer wrong' } : {},
        });
        assert.ok(!(wrong instanceof SseClient));
        assert.equal(wrong.status, 403);
        const body = JSON.parse(wrong.body);
        assert.deepEqual(
          { type: body.error_type, data: body.error_data, path: body.error_path, mmrpc: body.mmrpc },
          { type: 'UserpassIsInvalid', data: { error_type: 'NbAttemptsLeft', error_data: left }, path: 'rpc.auth', mmrpc: '2.0' },
        );
      }
      // Locked out now: the RPC and the streams refuse even the right password.
      assert.equal((await s.v2('task::enable_eth::status', { task_id: 0 })).body.error_type, 'Banned');
      const banned = await SseClient.open(`${s.service.url}/events`, { headers: bearer });
      assert.ok(!(banned instanceof SseClient));
      assert.equal(banned.status, 403);
      assert.equal(JSON.parse(banned.body).error_type, 'Banned');
    } finally {
      await s.stop();
    }
  });

  test('the configured origin is on stream responses, refusals and the preflight', async () => {
    const origin = 'http://gui.example:3000';
    const s = await startStack({ devnet, config: { event_streaming_configuration: { access_control_allow_origin: origin } } });
    try {
      const client = await SseClient.connect(eventsUrl(s), { headers: { ...bearer, origin } });
      assert.equal(client.headers['access-control-allow-origin'], origin);
      client.close();
      const refused = await SseClient.open(eventsUrl(s), { headers: { origin } });
      assert.ok(!(refused instanceof SseClient));
      assert.equal(refused.headers['access-control-allow-origin'], origin);
      const preflight = await fetch(`${s.service.url}/event-stream?id=1`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, last-event-id' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Last-Event-ID/);
      const post = await fetch(eventsUrl(s), { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
    } finally {
      await s.stop();
    }
  });

  test('the userpass of a stream URL, right or wrong, never reaches a log line', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const level = process.env.COIN_ACTIVATION_LOG;
    process.env.COIN_ACTIVATION_LOG = 'info';
    process.stderr.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const s = await startStack({ devnet });
    const wrong = 'Wrong-secret-77!';
    try {
      const ok = await SseClient.connect(`${eventsUrl(s)}?userpass=${encodeURIComponent(TEST_PASSWORD)}`);
      await ok.waitFor(typeOf('ready'));
      ok.close();
      await SseClient.open(`${eventsUrl(s)}?userpass=${encodeURIComponent(wrong)}`);
      await SseClient.open(`${s.service.url}/event-stream?id=zz&userpass=${encodeURIComponent(TEST_PASSWORD)}`);
      await SseClient.open(eventsUrl(s), { headers: { authorization: `Bearer ${wrong}` } });
    } finally {
      await s.stop();
      process.stderr.write = write;
      if (level === undefined) delete process.env.COIN_ACTIVATION_LOG;
      else process.env.COIN_ACTIVATION_LOG = level;
    }
    const text = lines.join('');
    assert.match(text, /stream auth refused/, 'the refusals were logged (so the check below means something)');
    assert.ok(!text.includes(TEST_PASSWORD) && !text.includes(wrong) && !text.includes('userpass='), text);
  });
});
