import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer } from '../../devnet/nats/natsServer.ts';
import { ensureEventsStream } from '../jetstream/ensureStream.ts';
import { STATUS_BUCKET_STREAM, openStatusKv } from './statusKv.ts';
import type { Log } from '../../kernel/log.ts';

test('the bucket follows the events stream’s replicas; a count the server refuses is reported in one warning', async (t) => {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  t.after(async () => (await nc.close(), await server.stop()));
  const jsm = await jetstreamManager(nc);
  await ensureEventsStream(jsm);
  const lines: string[] = [];
  const log: Log = { info: () => {}, warn: (m) => lines.push(m), error: (m) => lines.push(m) };

  await openStatusKv(nc, { log });
  assert.equal((await jsm.streams.info(STATUS_BUCKET_STREAM)).config.num_replicas, 1, 'as many as the events stream');
  assert.deepEqual(lines, []);

  const kv = await openStatusKv(nc, { replicas: 3, log }); // one server cannot hold 3
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^status bucket ACTIVATION_STATUS has 1 replica\(s\), 3 wanted; a server outside a cluster holds 1$/);
  assert.equal((await jsm.streams.info(STATUS_BUCKET_STREAM)).config.num_replicas, 1);
  await kv.put('k', 'still usable');
  assert.equal((await kv.get('k'))?.string(), 'still usable');
});
