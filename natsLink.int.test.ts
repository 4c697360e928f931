import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { startNatsServer, type NatsServer } from './devnet/nats/natsServer.ts';
import { TEST_ADDRESS, TEST_PASSWORD, enableEthParams, startStack, type Stack } from './devnet/testing/stack.ts';
import { STATUS_BUCKET, rpcSubject } from './events/jetstream/subjects.ts';
import { RPC_STATUS_HEADER } from './rpc/natsRpc.ts';
import { systemClock } from './kernel/clock.ts';

/** Issue 4, done when: an engine that only speaks NATS activates, watches events, reads the KV. */

let server: NatsServer;
let stack: Stack;
let engine: NatsConnection;

before(async () => {
  server = await startNatsServer();
  stack = await startStack({
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 12_345_000n }],
    config: { nats: { url: server.url }, node_id: 'desk-7' },
    clock: systemClock, // retries and backoff of the NATS link run on real time here
  });
  await stack.service.nats!.ready;
  engine = await connect({ servers: server.url });
});
after(async () => {
  await engine.close();
  await stack.stop();
  await server.stop();
});

async function rpc(method: string, params: unknown): Promise<{ status: number; body: any }> {
  const reply = await engine.request(rpcSubject('desk-7'), JSON.stringify({ mmrpc: '2.0', userpass: TEST_PASSWORD, method, params }), { timeout: 10_000 });
  return { status: Number(reply.headers?.get(RPC_STATUS_HEADER)), body: reply.json() };
}

async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('activate over NATS, watch the events on the stream, read the status from the KV bucket', async () => {
  const seen: { subject: string; type: string; msgId: string | undefined }[] = [];
  const sub = engine.subscribe('activation.events.desk-7.coin.ETH', {
    callback: (_e, msg) => {
      seen.push({ subject: msg.subject, type: msg.json<{ type: string }>().type, msgId: msg.headers?.get('Nats-Msg-Id') });
    },
  });
  const activated = await rpc('enable_eth_with_tokens', enableEthParams(stack, ['USDT-ERC20']));
  assert.equal(activated.status, 200, JSON.stringify(activated.body));
  assert.deepEqual(activated.body.result.erc20_addresses_infos[TEST_ADDRESS].balances, { 'USDT-ERC20': { spendable: '12.345', unspendable: '0' } });

  await until(async () => (seen.length >= 4 ? true : undefined), 'the events on the stream');
  // The activation's progress (issue 15) goes to NATS like every event.
  assert.deepEqual(seen.map((s) => s.type), ['ActivationRequested', 'NodeAttempted', 'TokensRead', 'CoinActivated']);
  assert.ok(seen.every((s) => s.subject === 'activation.events.desk-7.coin.ETH' && typeof s.msgId === 'string'));
  sub.unsubscribe();

  const kv = await new Kvm(engine).open(STATUS_BUCKET);
  const coin = await until(async () => {
    const entry = await kv.get('desk-7.coin.ETH');
    const value = entry?.json<any>();
    return value?.state === 'active' ? value : undefined;
  }, 'the coin status in the KV');
  assert.equal(coin.address, TEST_ADDRESS);
  assert.deepEqual(coin.balances['USDT-ERC20'], { spendable: '12.345', unspendable: '0' });

  const init = await rpc('task::enable_eth::init', enableEthParams(stack, [], { ticker: 'NOPE' }));
  const taskId = init.body.result.task_id;
  const task = await until(async () => {
    const value = (await kv.get(`desk-7.task.${taskId}`))?.json<any>();
    return value?.status === 'Error' ? value : undefined;
  }, 'the task status in the KV');
  assert.equal(task.details.error_type, 'PlatformConfigIsNotFound');
  const viaRpc = await rpc('task::enable_eth::status', { task_id: taskId, forget_if_finished: false });
  assert.deepEqual(viaRpc.body.result, { status: task.status, details: task.details }, 'the KV says what status says');
});
