/**
 * The NATS gauges of `GET /metrics` with a real nats-server: the outbox lag counts the events not
 * yet in the stream (NATS down, or never reached), and both lags fall back to 0 once caught up.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, type EvmDevnet } from '../../devnet/index.ts';
import { startNatsServer } from '../../devnet/nats/natsServer.ts';
import { TEST_PASSWORD, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { systemClock } from '../../kernel/clock.ts';

async function gauge(s: Stack, name: string): Promise<number> {
  const res = await fetch(`${s.service.url}/metrics`, { headers: { Authorization: `Bearer ${TEST_PASSWORD}` } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(line, `no ${name}`);
  return Number(line[1]);
}

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet();
});
after(() => devnet.stop());

test('NATS down: the outbox lag is the events waiting; after a restart both lags are 0 again', async () => {
  const server = await startNatsServer();
  const s = await startStack({ devnet, config: { nats: { url: server.url }, node_id: 'metrics-1' }, clock: systemClock });
  try {
    await s.service.nats!.ready;
    assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
    await s.service.nats!.publisher()!.whenCaughtUp();
    await s.service.nats!.projector()!.whenCaughtUp();
    assert.equal(await gauge(s, 'coin_activation_outbox_lag_events'), 0);
    assert.equal(await gauge(s, 'coin_activation_projector_lag_events'), 0);

    await server.kill();
    const before = s.service.log.lastSeq;
    assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
    assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
    const waiting = s.service.log.lastSeq - before;
    assert.ok(waiting > 0);
    assert.equal(await gauge(s, 'coin_activation_outbox_lag_events'), waiting, 'the events appended while NATS is down');

    await server.restart();
    await s.service.nats!.publisher()!.whenCaughtUp();
    await s.service.nats!.projector()!.whenCaughtUp();
    assert.equal(await gauge(s, 'coin_activation_outbox_lag_events'), 0);
    assert.equal(await gauge(s, 'coin_activation_projector_lag_events'), 0);
  } finally {
    await s.stop();
    await server.stop();
  }
});

test('NATS never reached since start: the outbox lag is every event after the saved mark', async () => {
  const url = (await refusedUrl()).replace('http://', 'nats://');
  const s = await startStack({ devnet, config: { nats: { url }, node_id: 'metrics-2' }, clock: systemClock });
  try {
    assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
    assert.equal(s.service.nats!.publisher(), undefined, 'not connected');
    assert.equal(await gauge(s, 'coin_activation_outbox_lag_events'), s.service.log.lastSeq, 'no mark: the whole log waits');
    assert.equal(await gauge(s, 'coin_activation_projector_lag_events'), 0);
  } finally {
    await s.stop();
  }
});
