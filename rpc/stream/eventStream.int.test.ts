import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { TEST_PASSWORD, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { SseClient, type SseFrame } from '../../devnet/testing/sseClient.ts';
import { startTask, taskStatus, untilFinished } from '../../devnet/testing/tasks.ts';
import { enableEthTaskStatusResult } from '../../spec/enableEthTask.ts';

/**
 * `GET /event-stream?id=<client_id>` over real HTTP (docs/streaming.md): a GUI follows a task
 * without polling, resumes after a dropped connection, and a client written for the reference
 * (plain `data:` lines) works unchanged.
 */

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }] });
});
after(() => devnet.stop());

const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };
const taskStreamUrl = (s: Stack, clientId?: number) => `${s.service.url}/event-stream${clientId === undefined ? '' : `?id=${clientId}`}`;
const isTaskFrame = (taskId: number) => (f: SseFrame) => f.event === undefined && JSON.parse(f.data)._type === `TASK:${taskId}`;
const finished = (taskId: number) => (f: SseFrame) => isTaskFrame(taskId)(f) && ['Ok', 'Error'].includes(JSON.parse(f.data).message.status);
const messages = (client: SseClient, taskId: number) => client.frames.filter(isTaskFrame(taskId)).map((f) => JSON.parse(f.data).message);

describe('/event-stream: task statuses pushed to the client id of init', () => {
  test('a GUI follows a task without one status poll and sees exactly the statuses status answers', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 150 });
    const s = await startStack({ devnet });
    try {
      const gui = await SseClient.connect(taskStreamUrl(s, 7), { headers: bearer });
      const other = await SseClient.connect(taskStreamUrl(s, 8), { headers: bearer });
      const ready = await gui.waitFor((f) => f.event === 'ready');
      assert.equal(ready.id, undefined, 'control frames carry no id');
      assert.deepEqual(JSON.parse(ready.data), { _type: 'READY', message: { client_id: 7, last_seq: s.service.log.lastSeq } });
      assert.equal(gui.headers['content-type'], 'text/event-stream; charset=utf-8');

      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url }], client_id: 7 };
      const taskId = await startTask(s, params);
      // An observer polls meanwhile (the GUI does not): every status it reads must be one the GUI got.
      const polled = await untilFinished(s, taskId, { intervalMs: 5 });
      await gui.waitFor(finished(taskId));

      const pushed = messages(gui, taskId);
      assert.deepEqual(
        pushed.map((m) => (typeof m.details === 'string' ? `${m.status}/${m.details}` : m.status)),
        ['InProgress/ActivatingCoin', 'InProgress/RequestingWalletBalance', 'InProgress/Finishing', 'Ok'],
      );
      for (const label of polled.seen) assert.ok(pushed.some((m) => (typeof m.details === 'string' ? `${m.status}/${m.details}` : m.status) === label), label);
      for (const m of pushed) assert.ok(enableEthTaskStatusResult.check(m), JSON.stringify(m));
      // The final frame is byte for byte what status answers.
      const { body } = await taskStatus(s, taskId, false);
      assert.deepEqual(pushed.at(-1), body.result);
      // Frames: id = the log sequence of the event that made the status, strictly increasing; no event: line.
      const frames = gui.frames.filter(isTaskFrame(taskId));
      const ids = frames.map((f) => Number(f.id));
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
      assert.equal(new Set(ids).size, ids.length);
      const logged = new Map<number, string>();
      for await (const e of s.service.log.read()) logged.set(e.metadata.seq, e.type);
      assert.deepEqual(ids.map((id) => logged.get(id)), ['TaskProgressed', 'TaskProgressed', 'TaskProgressed', 'TaskSucceeded']);
      // Another client id hears nothing of this task.
      assert.deepEqual(messages(other, taskId), []);
      gui.close();
      other.close();
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('a dropped connection resumes with Last-Event-ID: no gap, no duplicate; many connections per client id', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 50 });
    const s = await startStack({ devnet });
    try {
      const steady = await SseClient.connect(taskStreamUrl(s, 1), { headers: bearer });
      const flaky = await SseClient.connect(taskStreamUrl(s, 1), { headers: bearer });
      await Promise.all([steady.waitFor((f) => f.event === 'ready'), flaky.waitFor((f) => f.event === 'ready')]);
      assert.equal(s.service.streams.clientCount(), 2);
      const release = proxy.hold();
      const taskId = await startTask(s, { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url }], client_id: 1 });
      await flaky.waitFor(isTaskFrame(taskId));
      flaky.close();
      await flaky.ended;
      const lastSeen = flaky.lastEventId;
      assert.ok(lastSeen !== undefined);
      release();
      await steady.waitFor(finished(taskId));

      const resumed = await SseClient.connect(taskStreamUrl(s, 1), { headers: { ...bearer, 'last-event-id': lastSeen } });
      await resumed.waitFor(finished(taskId));
      const before = flaky.frames.filter(isTaskFrame(taskId));
      const after = resumed.frames.filter(isTaskFrame(taskId));
      assert.deepEqual([...before, ...after], steady.frames.filter(isTaskFrame(taskId)));
      assert.ok(after.every((f) => Number(f.id) > Number(lastSeen)));
      // ready comes first, before the replay.
      assert.equal(resumed.frames[0]?.event, 'ready');
      steady.close();
      resumed.close();
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('a client written for the reference (data: lines only, JSON with _type/message) follows the task unchanged', async () => {
    const s = await startStack({ devnet });
    try {
      const seen: { _type: string; message: any }[] = [];
      let registered!: () => void;
      const ready = new Promise<void>((resolve) => (registered = resolve));
      const url = new URL(`${taskStreamUrl(s)}`);
      url.searchParams.set('userpass', TEST_PASSWORD); // the reference has no auth: only this is added
      const done = new Promise<void>((resolve, reject) => {
        const req = http.get(url, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            // As the reference's clients read it: every `data:` line is one JSON {_type, message}.
            for (const line of text.split('\n').slice(0, -1)) {
              if (!line.startsWith('data:')) continue;
              const event = JSON.parse(line.slice(5));
              if (event._type === 'READY') registered(); // a first event: the client knows it is registered
              if (typeof event._type === 'string' && event._type.startsWith('TASK:')) seen.push(event);
              if (['Ok', 'Error'].includes(event.message?.status)) {
                req.destroy();
                resolve();
              }
            }
            text = text.slice(text.lastIndexOf('\n') + 1);
          });
          res.on('error', reject);
        });
        req.on('error', () => undefined);
      });
      // The reference's SDK waits for a first event before it relies on the stream: here it is `ready`.
      await ready;
      const taskId = await startTask(s, enableEthParams(s, [])); // client_id defaults to 0
      await done;
      assert.ok(seen.every((e) => e._type === `TASK:${taskId}`));
      assert.equal(seen.at(-1)?.message.status, 'Ok');
      assert.deepEqual(seen.at(-1)?.message, (await taskStatus(s, taskId, false)).body.result);
    } finally {
      await s.stop();
    }
  });

  test('init records client_id in TaskCreated and refuses a malformed one; a bad id or Last-Event-ID is a clear 400', async () => {
    const s = await startStack({ devnet });
    try {
      // (before the good one: an active platform is refused before its params are read)
      for (const bad of [-1, 1.5, '3']) {
        const { status, body } = await s.v2('task::enable_eth::init', { ...enableEthParams(s, []), client_id: bad });
        assert.equal(status, 400, JSON.stringify(body));
        assert.equal(body.error_type, 'InvalidRequest');
        assert.match(body.error, /client_id/);
      }
      const taskId = await startTask(s, { ...enableEthParams(s, []), client_id: 42 });
      const created = [];
      for await (const e of s.service.log.read()) if (e.type === 'TaskCreated' && e.data.taskId === taskId) created.push(e.data);
      assert.equal(created[0]?.clientId, 42);
      for (const [query, headers, pattern] of [
        ['?id=-1', {}, /id: "-1" is not a client id/],
        ['?id=abc', {}, /id: "abc" is not a client id/],
        ['?id=1&id=2', {}, /given more than once/],
        ['?client=1', {}, /unknown query parameter "client"/],
        ['?id=1', { 'last-event-id': 'x' }, /Last-Event-ID: "x" is not an event id/],
        ['?id=1', { 'last-event-id': '999999' }, /beyond the newest event/],
      ] as const) {
        const refused = await SseClient.open(`${s.service.url}/event-stream${query}`, { headers: { ...bearer, ...headers } });
        assert.ok(!(refused instanceof SseClient));
        assert.equal(refused.status, 400, query);
        const body = JSON.parse(refused.body);
        assert.equal(body.error_type, 'InvalidRequest');
        assert.match(body.error, pattern);
      }
      assert.equal(s.service.streams.clientCount(), 0);
    } finally {
      await s.stop();
    }
  });
});
