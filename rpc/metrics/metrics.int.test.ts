/**
 * `GET /metrics` over HTTP with real peers: the Prometheus text format parsed, values that follow
 * the activations and requests, the RPC's password and lockout, and `metrics.public`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, startSilentNode, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { TEST_PASSWORD, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';

const START = Date.UTC(2030, 0, 1, 12, 0, 0);

/** One sample of the text format: `name{label="value",…} number`. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses the Prometheus text exposition format (0.0.4): comments and samples, nothing else. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

async function scrape(s: Stack, headers: Record<string, string> = { Authorization: `Bearer ${TEST_PASSWORD}` }) {
  const res = await fetch(`${s.service.url}/metrics`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The value of one series (labels must match exactly); fails when the series is absent. */
async function valueOf(s: Stack, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { status, text } = await scrape(s);
  assert.equal(status, 200, text);
  const found = parseExposition(text).samples.find(
    (x) => x.name === name && Object.keys(x.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
  assert.ok(found, `no series ${name}${JSON.stringify(labels)}`);
  return found.value;
}

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_000_000n }] });
});
after(() => devnet.stop());

describe('GET /metrics', () => {
  test('every metric is exported from the start (0 without NATS or streams), in the text format, on a registry per service', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const { status, headers, text } = await scrape(s);
      assert.equal(status, 200);
      assert.match(headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const { samples, types } = parseExposition(text);
      assert.deepEqual(Object.fromEntries([...types].filter(([name]) => name.startsWith('coin_activation_')).sort()), {
        coin_activation_activation_seconds: 'histogram',
        coin_activation_activations_total: 'counter',
        coin_activation_event_append_seconds: 'histogram',
        coin_activation_node_requests_total: 'counter',
        coin_activation_outbox_lag_events: 'gauge',
        coin_activation_projector_lag_events: 'gauge',
        coin_activation_rpc_requests_total: 'counter',
        coin_activation_stream_clients: 'gauge',
      });
      const at = (name: string, labels: Record<string, string>) => samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value;
      for (const family of ['evm', 'tron', 'utxo']) {
        for (const outcome of ['activated', 'failed', 'cancelled']) assert.equal(at('coin_activation_activations_total', { family, outcome }), 0);
        for (const outcome of ['answered', 'failed', 'timedOut', 'busy', 'skippedBusy', 'rejected']) assert.equal(at('coin_activation_node_requests_total', { family, outcome }), 0);
        assert.equal(at('coin_activation_activation_seconds_count', { family }), 0);
      }
      assert.equal(at('coin_activation_rpc_requests_total', { method: 'enable_eth_with_tokens', status: '200' }), 0);
      assert.equal(at('coin_activation_rpc_requests_total', { method: 'unknown', status: '200' }), 0);
      assert.equal(at('coin_activation_outbox_lag_events', {}), 0, 'no NATS');
      assert.equal(at('coin_activation_projector_lag_events', {}), 0, 'no NATS');
      assert.equal(at('coin_activation_stream_clients', {}), 0);
      assert.equal(samples.some((x) => x.name.startsWith('process_') || x.name.startsWith('nodejs_')), false, 'the global registry is not shown');
    } finally {
      await s.stop();
    }
  });

  test('stream_clients counts the open connections of both event streams', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    const headers = { Authorization: `Bearer ${TEST_PASSWORD}` };
    try {
      const events = await SseClient.connect(`${s.service.url}/events`, { headers });
      const tasks = await SseClient.connect(`${s.service.url}/event-stream?id=7`, { headers });
      assert.equal(await valueOf(s, 'coin_activation_stream_clients'), 2);
      events.close();
      await eventually(() => s.service.streams.clientCount() === 1, 'the closed stream to be counted out');
      assert.equal(await valueOf(s, 'coin_activation_stream_clients'), 1);
      tasks.close();
      await eventually(() => s.service.streams.clientCount() === 0, 'both closed');
      assert.equal(await valueOf(s, 'coin_activation_stream_clients'), 0);
    } finally {
      await s.stop();
    }
  });

  test('activations, their time, node attempts, RPC requests and event appends follow what happened', async () => {
    const clock = new ManualClock(START);
    const silent = await startSilentNode();
    const s = await startStack({ devnet, clock });
    const other = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const appendsBefore = await valueOf(s, 'coin_activation_event_append_seconds_count');
      // A silent node costs its 10 s budget on the clock, then the devnet answers: 10 s in all.
      const pending = s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20'], { nodes: [{ url: silent.url }, { url: devnet.url }] }));
      await eventually(() => silent.connections() > 0, 'the silent node is asked');
      clock.advance(10_000);
      assert.equal((await pending).status, 200);
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).status, 200);
      const unknown = await s.v2('no_such_method');
      assert.equal(unknown.status, 400);

      const evm = (outcome: string) => ({ family: 'evm', outcome });
      assert.equal(await valueOf(s, 'coin_activation_activations_total', evm('activated')), 1);
      assert.equal(await valueOf(s, 'coin_activation_node_requests_total', evm('timedOut')), 1);
      assert.equal(await valueOf(s, 'coin_activation_node_requests_total', evm('answered')), 1);
      assert.equal(await valueOf(s, 'coin_activation_activation_seconds_sum', { family: 'evm' }), 10);
      assert.equal(await valueOf(s, 'coin_activation_activation_seconds_bucket', { family: 'evm', le: '5' }), 0);
      assert.equal(await valueOf(s, 'coin_activation_activation_seconds_bucket', { family: 'evm', le: '10' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_rpc_requests_total', { method: 'enable_eth_with_tokens', status: '200' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_rpc_requests_total', { method: 'unknown', status: '400' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_rpc_requests_total', { method: 'my_balance', status: '200' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_node_requests_total', evm('failed')), 0, 'a balance read is no activation');
      // Five events (requested, two node attempts, tokens, activated) in 2 to 5 appends: progress shares a write when it can.
      const appends = (await valueOf(s, 'coin_activation_event_append_seconds_count')) - appendsBefore;
      assert.ok(appends >= 2 && appends <= 5, `${appends} appends`);
      assert.equal(await valueOf(other, 'coin_activation_activations_total', evm('activated')), 0, 'another service in this process counts its own');
    } finally {
      await other.stop();
      await s.stop();
      await silent.stop();
    }
  });

  test('a failed activation counts as failed, its refused node as failed', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const answer = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nodes: [{ url: await refusedUrl() }] }));
      assert.equal(answer.status, 502);
      assert.equal(await valueOf(s, 'coin_activation_activations_total', { family: 'evm', outcome: 'failed' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_node_requests_total', { family: 'evm', outcome: 'failed' }), 1);
      assert.equal(await valueOf(s, 'coin_activation_rpc_requests_total', { method: 'enable_eth_with_tokens', status: '502' }), 1);
    } finally {
      await s.stop();
    }
  });

  test('the RPC password as a Bearer token: missing 401, wrong 403, counted by the RPC\'s own lockout', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START) });
    try {
      const missing = await scrape(s, {});
      assert.equal(missing.status, 401);
      assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
      assert.equal(JSON.parse(missing.text).error_type, 'UserpassIsNotSet');
      const basic = await scrape(s, { Authorization: `Basic ${Buffer.from(`x:${TEST_PASSWORD}`).toString('base64')}` });
      assert.equal(basic.status, 401, 'only a Bearer token is read');
      for (let left = 9; left >= 0; left--) {
        const wrong = await scrape(s, { Authorization: 'Bearer not-the-password' });
        assert.equal(wrong.status, 403);
        const body = JSON.parse(wrong.text);
        assert.equal(body.error_type, 'UserpassIsInvalid');
        assert.deepEqual(body.error_data, { error_type: 'NbAttemptsLeft', error_data: left });
        assert.doesNotMatch(wrong.text, /not-the-password|coin_activation_/);
      }
      // Locked out: the right password is refused, on /metrics and on the RPC alike.
      const locked = await scrape(s);
      assert.equal(locked.status, 403);
      assert.equal(JSON.parse(locked.text).error_type, 'Banned');
      const rpc = await s.v2('get_enabled_coins');
      assert.equal(rpc.body.error_type, 'Banned');
    } finally {
      await s.stop();
    }
  });

  test('MM2.json metrics.public answers without the password; other methods than GET are refused', async () => {
    const s = await startStack({ devnet, clock: new ManualClock(START), config: { metrics: { public: true } } });
    try {
      const open = await scrape(s, {});
      assert.equal(open.status, 200);
      assert.match(open.text, /^coin_activation_stream_clients 0$/m);
      const post = await fetch(`${s.service.url}/metrics`, { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
    } finally {
      await s.stop();
    }
  });
});
