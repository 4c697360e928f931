/**
 * The audit trail of withdrawals (issue 25, docs/events.md "Withdrawals"): `WithdrawalSigned` and
 * `TransactionBroadcast` go from the log to NATS, the task's result to the status KV, and both to
 * `/events`; a replay rebuilds the KV values; and no secret (passphrase, private key, RPC
 * password) appears in events, logs, errors or NATS.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAddress } from 'ethers';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { startNatsServer, type NatsServer } from '../../devnet/nats/natsServer.ts';
import { TEST_PASSPHRASE, TEST_PASSWORD, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import { readEvents } from '../../devnet/testkits/readEvents.ts';
import { STATUS_BUCKET, eventSubject, rpcSubject } from '../../events/jetstream/subjects.ts';
import { StatusState } from '../../events/projections/statusState.ts';
import { kvDigest } from '../../events/replay/replayKv.ts';
import { RPC_STATUS_HEADER } from '../natsRpc.ts';
import { systemClock } from '../../kernel/clock.ts';
import { iguanaPrivateKey } from '../../infra/keys/iguanaSeed.ts';
import type { StoredEvent } from '../../spec/events.ts';

const NODE = 'desk-25';
const RECIPIENT = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const PRIVATE_KEY = Buffer.from(iguanaPrivateKey(TEST_PASSPHRASE).key).toString('hex');
const SECRETS = [TEST_PASSPHRASE, TEST_PASSWORD, PRIVATE_KEY];
let server: NatsServer;
let stack: Stack;
let engine: NatsConnection;
let kv: KV;

before(async () => {
  server = await startNatsServer();
  stack = await startStack({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 5_000_000n }], config: { nats: { url: server.url }, node_id: NODE }, clock: systemClock });
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

async function logged(): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for await (const e of stack.service.log.read()) all.push(e);
  return all;
}

/** The KV value of `key` once the projector has applied `last`, its aggregate's last event. */
async function projected(key: string, last: number): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const value = (await kv.get(key))?.json<any>();
    if (value !== undefined && value.lastSeq >= last) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the projector did not catch up on ${key}`);
}

test('task::withdraw and send_raw_transaction over NATS: events on NATS and /events, the task result in the KV (= a replay); no secret anywhere', async () => {
  const captured: string[] = [];
  const level = process.env.COIN_ACTIVATION_LOG;
  process.env.COIN_ACTIVATION_LOG = 'info';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stderr.write;
  const answers: string[] = [];
  const call = async (method: string, params: unknown, legacy = false) => {
    const answer = legacy ? await rpc({ method, ...(params as object) }) : await v2(method, params);
    answers.push(JSON.stringify(answer.body));
    return answer;
  };
  let sse: SseClient | undefined;
  try {
    assert.equal((await call('enable_eth_with_tokens', enableEthParams(stack, ['USDT-ERC20']))).status, 200);
    sse = await SseClient.connect(`${stack.service.url}/events?coin=ETH&type=WithdrawalSigned&type=TransactionBroadcast`, { headers: { authorization: `Bearer ${TEST_PASSWORD}` } });
    await sse.waitFor((f) => f.event === 'ready');
    const init = await call('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.2' });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const taskId = init.body.result.task_id;
    let status: any;
    for (let i = 0; i < 400; i++) {
      status = (await call('task::withdraw::status', { task_id: taskId, forget_if_finished: false })).body.result;
      if (status.status === 'Ok' || status.status === 'Error') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(status.status, 'Ok', JSON.stringify(status));
    const sent = await call('send_raw_transaction', { coin: 'ETH', tx_hex: status.details.tx_hex }, true);
    assert.deepEqual(sent.body, { tx_hash: status.details.tx_hash });
    // Refusals are logged and answered: neither shows a secret.
    await call('withdraw', { coin: 'ETH', to: RECIPIENT.toLowerCase(), amount: '0.2' });
    await call('task::withdraw::user_action', { task_id: taskId, user_action: { action_type: 'TrezorPassphrase', passphrase: TEST_PASSPHRASE } });

    const log = await logged();
    const signed = log.find((e) => e.type === 'WithdrawalSigned' && e.data.txHash === status.details.tx_hash)!;
    const broadcast = log.find((e) => e.type === 'TransactionBroadcast' && e.data.txHash === status.details.tx_hash)!;
    assert.deepEqual(signed.data, { ticker: 'ETH', taskId, from: status.details.from, to: [RECIPIENT], amount: '0.2', feeDetails: status.details.fee_details, txHash: status.details.tx_hash, nonce: '0' });
    assert.equal(JSON.stringify(signed).includes(status.details.tx_hex), false, 'WithdrawalSigned keeps no transaction hex');

    // NATS: the same events, on the coin's subject.
    const js = jetstream(engine);
    const onNats: StoredEvent[] = [];
    for await (const e of readEvents(js, eventSubject(NODE, 'coin.ETH'))) onNats.push(e);
    assert.deepEqual(onNats.filter((e) => e.type === 'WithdrawalSigned' || e.type === 'TransactionBroadcast'), [signed, broadcast]);
    // /events: both, as frames.
    await sse.waitFor((f) => f.event === 'TransactionBroadcast');
    assert.deepEqual(sse.frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data)), [signed, broadcast]);
    // KV: the task's value is its status answer, as a replay of the log builds it.
    const key = `${NODE}.task.${taskId}`;
    const value = await projected(key, Math.max(...log.filter((e) => e.metadata.stream === `task.${taskId}`).map((e) => e.metadata.seq)));
    assert.equal(JSON.stringify(value).includes(status.details.tx_hash), true);
    const replayed = new StatusState();
    for (const e of log) replayed.apply(e, NODE);
    assert.deepEqual(replayed.get(key), value);
    assert.equal(await kvDigest(kv, { node: NODE }), replayed.digest());

    // No secret in the event log file, NATS, /events, answers or log lines.
    const file = await readFile(join(stack.dir, 'db', 'events.log'), 'utf8');
    const everything = [file, JSON.stringify(onNats), JSON.stringify(sse.frames), ...answers, ...captured].join('\n');
    for (const secret of SECRETS) assert.equal(everything.includes(secret), false, `a secret leaked (${secret.length} chars)`);
    assert.ok(captured.some((line) => line.includes('InvalidAddress')), 'the refusal was logged');
  } finally {
    process.stderr.write = write;
    if (level === undefined) delete process.env.COIN_ACTIVATION_LOG;
    else process.env.COIN_ACTIVATION_LOG = level;
    sse?.close();
  }
});
