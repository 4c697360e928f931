import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { startNatsServer, type NatsServer } from '../../devnet/nats/natsServer.ts';
import { TEST_PASSWORD, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { STATUS_BUCKET, rpcSubject } from '../../events/jetstream/subjects.ts';
import { StatusState } from '../../events/projections/statusState.ts';
import { kvDigest } from '../../events/replay/replayKv.ts';
import { RPC_STATUS_HEADER } from '../natsRpc.ts';
import { systemClock } from '../../kernel/clock.ts';

/** Issue 13 over NATS: coin_status and the setters through RPC over NATS; the KV value carries the same settings and equals a replay. */

const NODE = 'desk-13';
let server: NatsServer;
let stack: Stack;
let engine: NatsConnection;
let kv: KV;

before(async () => {
  server = await startNatsServer();
  stack = await startStack({
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 5_000_000n }],
    config: { nats: { url: server.url }, node_id: NODE },
    clock: systemClock, // retries and backoff of the NATS link run on real time here
  });
  await stack.service.nats!.ready;
  engine = await connect({ servers: server.url });
  kv = await new Kvm(engine).open(STATUS_BUCKET);
});
after(async () => {
  await engine.close();
  await stack.stop();
  await server.stop();
});

async function rpc(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const reply = await engine.request(rpcSubject(NODE), JSON.stringify({ userpass: TEST_PASSWORD, ...body }), { timeout: 10_000 });
  return { status: Number(reply.headers?.get(RPC_STATUS_HEADER)), body: reply.json() };
}
const v2 = (method: string, params: unknown) => rpc({ mmrpc: '2.0', method, params });

/** The KV value of ETH once the projector has applied the log up to its last event. */
async function projected(): Promise<any> {
  let last = 0;
  for await (const e of stack.service.log.read()) last = e.metadata.seq;
  for (let i = 0; i < 400; i++) {
    const value = (await kv.get(`${NODE}.coin.ETH`))?.json<any>();
    if (value !== undefined && value.lastSeq >= last) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the projector did not catch up');
}

test('coin_status and set_required_confirmations over NATS; the KV value holds the same settings and equals a replay of the log', async () => {
  const params = enableEthParams(stack, ['USDT-ERC20'], { required_confirmations: 4, tx_history: true });
  const activated = await v2('enable_eth_with_tokens', params);
  assert.equal(activated.status, 200, JSON.stringify(activated.body));

  const eth = await v2('coin_status', { ticker: 'ETH' });
  assert.equal(eth.status, 200, JSON.stringify(eth.body));
  assert.equal(eth.body.result.required_confirmations, 4);
  assert.equal(eth.body.result.tx_history, true);
  assert.deepEqual(eth.body.result.tokens, ['USDT-ERC20']);

  const set = await rpc({ method: 'set_required_confirmations', coin: 'USDT-ERC20', confirmations: 10 });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual(set.body, { result: { coin: 'USDT-ERC20', confirmations: 10 } });
  const usdt = await v2('coin_status', { ticker: 'USDT-ERC20' });
  assert.equal(usdt.body.result.required_confirmations, 10);

  const value = await projected();
  assert.equal(value.settings.ETH.requiredConfirmations, eth.body.result.required_confirmations);
  assert.equal(value.settings.ETH.txHistory, true);
  assert.equal(value.settings['USDT-ERC20'].requiredConfirmations, 10);
  assert.equal(value.activatedAt, eth.body.result.activated_at);
  assert.equal(value.derivationMethod, 'Iguana');

  const replayed = new StatusState();
  for await (const e of stack.service.log.read()) replayed.apply(e, NODE);
  assert.deepEqual(replayed.get(`${NODE}.coin.ETH`), value, 'a replay rebuilds the same value');
  assert.equal(await kvDigest(kv, { node: NODE }), replayed.digest());

  const missing = await v2('coin_status', { ticker: 'NOPE' });
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body.error_data, { coin: 'NOPE' });
});
