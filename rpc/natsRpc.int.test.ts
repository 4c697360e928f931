import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Type } from '@sinclair/typebox';
import { startNatsServer, type NatsServer } from '../devnet/nats/natsServer.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { compile } from '../spec/validate.ts';
import { AuthGuard } from './auth.ts';
import { createDispatcher } from './dispatcher.ts';
import { defineMethod, RpcVersion } from './methods.ts';
import { silentLog } from '../kernel/log.ts';
import { RPC_STATUS_HEADER, serveRpcOverNats } from './natsRpc.ts';

const PASSWORD = 'Nats-rpc-pw-42!';
let server: NatsServer;
let nc: NatsConnection;
let stop: () => Promise<void>;
let stopSmall: () => Promise<void>;

before(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  const dispatcher = createDispatcher({
    methods: {
      echo: defineMethod({
        version: RpcVersion.V2,
        params: compile(Type.Object({ text: Type.String() })),
        handle: ({ text }) => ({ text }),
      }),
      slow_echo: defineMethod({
        version: RpcVersion.V2,
        params: compile(Type.Object({ text: Type.String() })),
        handle: async ({ text }) => ({ text }),
      }),
    },
    auth: new AuthGuard({ rpcPassword: PASSWORD, clock: new ManualClock() }),
    log: silentLog,
  });
  stop = serveRpcOverNats({ nc, nodeId: 'node-a', dispatcher, log: silentLog }).stop;
  stopSmall = serveRpcOverNats({ nc, nodeId: 'node-small', dispatcher, log: silentLog, maxBodyBytes: 256 }).stop;
});
after(async () => {
  await stopSmall();
  await stop();
  await nc.close();
  await server.stop();
});

async function call(body: unknown, client: NatsConnection = nc, subject = 'activation.rpc.node-a'): Promise<{ status: number; body: any }> {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const reply = await client.request(subject, payload, { timeout: 5_000 });
  return { status: Number(reply.headers?.get(RPC_STATUS_HEADER)), body: reply.json() };
}

test('request-reply answers with the HTTP bodies and statuses', async () => {
  assert.deepEqual(await call({ mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: { text: 'hi' }, id: 3 }), {
    status: 200,
    body: { mmrpc: '2.0', result: { text: 'hi' }, id: 3 },
  });
  const slow = await call({ mmrpc: '2.0', userpass: PASSWORD, method: 'slow_echo', params: { text: 'later' } });
  assert.deepEqual(slow.body.result, { text: 'later' });
  const missing = await call({ mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: {} });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error_type, 'InvalidRequest');
  const batch = await call([{ mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: { text: 'a' } }, { userpass: 'x', method: 'echo' }]);
  assert.equal(batch.status, 200);
  assert.equal(batch.body.length, 2);
});

test('wrong passwords are counted per NATS connection, like per IP over HTTP', async () => {
  const other = await connect({ servers: server.url });
  try {
    const first = await call({ mmrpc: '2.0', userpass: 'wrong', method: 'echo', params: { text: 'x' } }, other);
    assert.equal(first.status, 403);
    assert.deepEqual(first.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 });
    const second = await call({ mmrpc: '2.0', userpass: 'wrong', method: 'echo', params: { text: 'x' } }, other);
    assert.deepEqual(second.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 8 });
    const third = await connect({ servers: server.url });
    const fresh = await call({ mmrpc: '2.0', userpass: 'wrong', method: 'echo', params: { text: 'x' } }, third);
    await third.close();
    assert.deepEqual(fresh.body.error_data, { error_type: 'NbAttemptsLeft', error_data: 9 }, 'another connection has its own count');
    assert.equal(JSON.stringify([first, second, fresh]).includes(PASSWORD), false);
  } finally {
    await other.close();
  }
});

test('the body bounds of HTTP hold over NATS: size (413), UTF-8 (500), nesting (InvalidRequest)', async () => {
  const big = await call({ mmrpc: '2.0', userpass: PASSWORD, method: 'echo', params: { text: 'x'.repeat(300) } }, nc, 'activation.rpc.node-small');
  assert.deepEqual(big, { status: 413, body: { error: 'Request body is larger than 256 bytes' } });
  const notUtf8 = await call(new Uint8Array([0x7b, 0xff, 0x7d]));
  assert.deepEqual(notUtf8, { status: 500, body: { error: 'The request body is not valid UTF-8' } });
  const deep = `{"mmrpc":"2.0","userpass":"${PASSWORD}","method":"echo","params":{"text":${'['.repeat(30_000)}${']'.repeat(30_000)}},"id":2}`;
  const refused = await call(deep);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error_type, 'InvalidRequest');
  assert.equal(refused.body.id, 2);
});
