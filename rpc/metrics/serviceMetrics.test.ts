import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { compile } from '../../spec/validate.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { AuthGuard } from '../auth.ts';
import { createDispatcher } from '../dispatcher.ts';
import { silentLog } from '../../kernel/log.ts';
import { defineMethod, RpcVersion } from '../methods.ts';
import { ServiceMetrics } from './serviceMetrics.ts';

const PASSWORD = 'Kx7$orbit-Maple';

/** `name{labels} value` lines of the scrape that start with `prefix`. */
async function lines(metrics: ServiceMetrics, prefix: string): Promise<string[]> {
  return (await metrics.scrape()).text.split('\n').filter((l) => l.startsWith(prefix));
}

test('Given a dispatcher that tells the metrics, when a batch mixes known, unknown and malformed requests, then each is one request under a bounded method label', async () => {
  const metrics = new ServiceMetrics();
  const methods = { ping: defineMethod({ version: RpcVersion.V2, params: compile(Type.Object({})), handle: () => 'pong' }) };
  metrics.knowMethods(Object.keys(methods));
  const d = createDispatcher({ methods, auth: new AuthGuard({ rpcPassword: PASSWORD, clock: new ManualClock() }), log: silentLog, onAnswered: (m, s) => metrics.rpcAnswered(m, s) });
  const call = (method: unknown) => ({ mmrpc: '2.0', userpass: PASSWORD, method, params: {} });
  await d.handle(JSON.stringify([call('ping'), call('ping'), call('no_such_1'), call('no_such_2'), 42]), { clientId: 'c' });
  await d.handle('{not json', { clientId: 'c' });
  await d.handle(JSON.stringify({ ...call('ping'), userpass: 'wrong' }), { clientId: 'c' });
  assert.deepEqual((await lines(metrics, 'coin_activation_rpc_requests_total{')).sort(), [
    'coin_activation_rpc_requests_total{method="ping",status="200"} 2',
    'coin_activation_rpc_requests_total{method="ping",status="403"} 1',
    'coin_activation_rpc_requests_total{method="unknown",status="200"} 0',
    'coin_activation_rpc_requests_total{method="unknown",status="400"} 3',
    'coin_activation_rpc_requests_total{method="unknown",status="500"} 1',
  ]);
});

test('Given answers counted between scrapes, when the metrics are read twice with more answers in between, then each answer counts exactly once', async () => {
  const metrics = new ServiceMetrics();
  metrics.knowMethods(['ping']);
  const ping200 = async () => (await lines(metrics, 'coin_activation_rpc_requests_total{method="ping",status="200"}'))[0];
  metrics.rpcAnswered('ping', 200);
  metrics.rpcAnswered('ping', 200);
  assert.equal(await ping200(), 'coin_activation_rpc_requests_total{method="ping",status="200"} 2');
  assert.equal(await ping200(), 'coin_activation_rpc_requests_total{method="ping",status="200"} 2');
  metrics.rpcAnswered('ping', 200);
  metrics.rpcAnswered('other', 404);
  assert.equal(await ping200(), 'coin_activation_rpc_requests_total{method="ping",status="200"} 3');
  assert.deepEqual(await lines(metrics, 'coin_activation_rpc_requests_total{method="unknown",status="404"}'), ['coin_activation_rpc_requests_total{method="unknown",status="404"} 1']);
});

const at = (seq: number, seconds: number) => ({ eventId: `e${seq}`, seq, stream: 'coin.ETH', streamSeq: seq, sessionId: 's', time: new Date(Date.UTC(2030, 0, 1) + seconds * 1000).toISOString() });
const stored = (seq: number, seconds: number, event: Omit<StoredEvent, 'metadata'>): StoredEvent => ({ ...event, metadata: at(seq, seconds) }) as StoredEvent;

test('Given the events of two attempts, when they end, then each counts once with the time between its request and its outcome', async () => {
  const metrics = new ServiceMetrics();
  const requested = (attempt: number) => ({ type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'enable_eth_with_tokens', tokens: [], getBalances: true, attempt } }) as const;
  metrics.observe(stored(1, 0, requested(1)));
  metrics.observe(stored(2, 1, { type: 'NodeAttempted', data: { ticker: 'ETH', family: 'evm', attempt: 1, read: 1, retry: 0, node: 0, origin: 'http://127.0.0.1:1', outcome: 'failed', ms: 1 } }));
  metrics.observe(stored(3, 2.5, { type: 'ActivationFailed', data: { ticker: 'ETH', attempt: 1, error: { errorType: 'Transport', message: 'down' } } }));
  metrics.observe(stored(4, 10, requested(2)));
  // An outcome of another attempt (a stale one) is not this attempt's.
  metrics.observe(stored(5, 11, { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 1 } }));
  metrics.observe(stored(6, 10.25, { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 2 } }));
  assert.deepEqual(await lines(metrics, 'coin_activation_activations_total{family="evm"'), [
    'coin_activation_activations_total{family="evm",outcome="activated"} 0',
    'coin_activation_activations_total{family="evm",outcome="failed"} 1',
    'coin_activation_activations_total{family="evm",outcome="cancelled"} 1',
  ]);
  assert.deepEqual(await lines(metrics, 'coin_activation_activation_seconds_sum{family="evm"'), ['coin_activation_activation_seconds_sum{family="evm"} 2.75']);
  assert.deepEqual(await lines(metrics, 'coin_activation_node_requests_total{family="evm",outcome="failed"'), ['coin_activation_node_requests_total{family="evm",outcome="failed"} 1']);
});
