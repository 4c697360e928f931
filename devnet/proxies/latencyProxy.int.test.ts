import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEvmDevnet, type EvmDevnet } from '../evm/evmDevnet.ts';
import { refusedUrl } from './faultyNodes.ts';
import { startLatencyProxy, type LatencyProxy } from './latencyProxy.ts';

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

async function rpc(url: string, body: unknown): Promise<{ status: number; json: any; ms: number }> {
  const startedAt = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await response.json();
  return { status: response.status, json, ms: performance.now() - startedAt };
}

describe('startLatencyProxy in front of a devnet', () => {
  let devnet: EvmDevnet;
  let counting: LatencyProxy;
  let slow: LatencyProxy;
  const LATENCY_MS = 120;

  before(async () => {
    devnet = await startEvmDevnet();
    [counting, slow] = await Promise.all([
      startLatencyProxy({ target: devnet.url, latencyMs: 0 }),
      startLatencyProxy({ target: devnet.url, latencyMs: LATENCY_MS }),
    ]);
  });
  after(async () => {
    await Promise.all([counting?.stop(), slow?.stop()]);
    await devnet?.stop();
  });
  beforeEach(() => {
    counting.reset();
    slow.reset();
  });

  test('forwards and counts HTTP requests, calls (batch elements one by one) and methods', async () => {
    const single = await rpc(counting.url, call(1, 'eth_chainId'));
    assert.equal(single.json.result, '0x539');
    const batch = await rpc(counting.url, [
      call(1, 'eth_blockNumber'),
      call(2, 'eth_chainId'),
      call(3, 'eth_getBalance', [devnet.deployer, 'latest']),
      call(4, 'eth_call', [{ to: devnet.deployer, data: '0x' }, 'latest']),
      call(5, 'eth_call', [{ data: '0x00' }, 'latest']),
    ]);
    assert.deepEqual(batch.json.map((r: { id: number }) => r.id), [1, 2, 3, 4, 5]);
    assert.deepEqual(counting.stats(), {
      httpRequests: 2,
      rpcCalls: 6,
      byMethod: { eth_chainId: 2, eth_blockNumber: 1, eth_getBalance: 1, eth_call: 2 },
      callsWithoutTo: 1,
      maxInFlight: 1,
    });
    counting.reset();
    assert.deepEqual(counting.stats(), { httpRequests: 0, rpcCalls: 0, byMethod: {}, callsWithoutTo: 0, maxInFlight: 0 });
  });

  test('stats() is a snapshot', async () => {
    const before = counting.stats();
    await rpc(counting.url, call(1, 'eth_chainId'));
    assert.deepEqual(before, { httpRequests: 0, rpcCalls: 0, byMethod: {}, callsWithoutTo: 0, maxInFlight: 0 });
  });

  test('adds the latency to each round trip', async (t) => {
    await rpc(devnet.url, call(1, 'eth_chainId')); // warm the direct connection
    await rpc(slow.url, call(1, 'eth_chainId')); // and the proxied one
    const direct = await rpc(devnet.url, call(2, 'eth_blockNumber'));
    const proxied = await rpc(slow.url, call(2, 'eth_blockNumber'));
    t.diagnostic(`direct ${direct.ms.toFixed(1)} ms, proxied ${proxied.ms.toFixed(1)} ms`);
    assert.equal(proxied.json.result, direct.json.result);
    assert.ok(proxied.ms >= LATENCY_MS - 5, `proxied round trip took only ${proxied.ms} ms`);
    assert.ok(proxied.ms < LATENCY_MS + 1_000, `proxied round trip took ${proxied.ms} ms`);
  });

  test('records the peak of concurrent requests', async () => {
    await Promise.all(Array.from({ length: 5 }, (_, i) => rpc(slow.url, call(i, 'eth_blockNumber'))));
    assert.equal(slow.stats().maxInFlight, 5);
    slow.reset();
    for (let i = 0; i < 3; i += 1) await rpc(slow.url, call(i, 'eth_blockNumber'));
    assert.deepEqual([slow.stats().maxInFlight, slow.stats().httpRequests], [1, 3]);
  });

  test('counts non-JSON bodies as HTTP requests only and passes the node answer through', async () => {
    const response = await fetch(counting.url, { method: 'POST', body: 'not json' });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { error: { code: number } }).error.code, -32700);
    assert.deepEqual(counting.stats(), { httpRequests: 1, rpcCalls: 0, byMethod: {}, callsWithoutTo: 0, maxInFlight: 1 });
  });
});

test('answers 502 with a JSON-RPC error when the node refuses connections', async () => {
  const proxy = await startLatencyProxy({ target: await refusedUrl(), latencyMs: 0 });
  try {
    const { status, json } = await rpc(proxy.url, call(1, 'eth_chainId'));
    assert.equal(status, 502);
    assert.equal(json.error.code, -32603);
    assert.match(json.error.message, /ECONNREFUSED/);
    assert.equal(proxy.stats().rpcCalls, 1);
  } finally {
    await proxy.stop();
  }
});
