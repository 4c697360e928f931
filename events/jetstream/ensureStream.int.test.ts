import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { startNatsServer } from '../../devnet/nats/natsServer.ts';
import { ensureEventsStream, eventsStreamConfig } from './ensureStream.ts';
import { EVENTS_STREAM } from './subjects.ts';

test('ensureEventsStream creates once, is idempotent, applies changed options and keeps extra subjects', async (t) => {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  t.after(async () => {
    await nc.close();
    await server.stop();
  });
  const jsm = await jetstreamManager(nc);
  const first = await ensureEventsStream(jsm);
  assert.deepEqual([first.created, first.updated], [true, false]);
  assert.deepEqual(first.info.config.subjects, ['activation.events.>']);
  assert.equal(first.info.config.storage, StorageType.File);
  assert.equal(first.info.config.duplicate_window, 120_000_000_000);
  const [a, b] = await Promise.all([ensureEventsStream(jsm), ensureEventsStream(jsm)]);
  assert.deepEqual([a.created, a.updated, b.created, b.updated], [false, false, false, false]);

  await jsm.streams.update(EVENTS_STREAM, { ...first.info.config, subjects: ['activation.events.>', 'other.>'] });
  const changed = await ensureEventsStream(jsm, { maxAgeMs: 86_400_000, duplicateWindowMs: 60_000 });
  assert.deepEqual([changed.created, changed.updated], [false, true]);
  assert.equal(changed.info.config.max_age, 86_400_000_000_000);
  assert.equal(changed.info.config.duplicate_window, 60_000_000_000);
  assert.deepEqual(changed.info.config.subjects, ['activation.events.>', 'other.>']);
  assert.equal((await ensureEventsStream(jsm, { maxAgeMs: 86_400_000, duplicateWindowMs: 60_000 })).updated, false);

  await jsm.streams.delete(EVENTS_STREAM);
  await jsm.streams.add({ name: EVENTS_STREAM, subjects: ['activation.events.>'], storage: StorageType.Memory });
  await assert.rejects(ensureEventsStream(jsm), /memory storage; it must be file storage/);
});

test('the duplicate window may not exceed the max age', () => {
  assert.throws(() => eventsStreamConfig({ maxAgeMs: 1_000, duplicateWindowMs: 2_000 }), /must not exceed maxAgeMs/);
  assert.equal(eventsStreamConfig({ replicas: 3 }).num_replicas, 3);
  assert.equal(eventsStreamConfig({ maxAgeMs: 60_000 }).duplicate_window, 60_000_000_000, 'the default window shrinks to the max age');
});
