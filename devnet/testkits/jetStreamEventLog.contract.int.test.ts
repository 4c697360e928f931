import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer, type NatsServer } from '../nats/natsServer.ts';
import { eventLogContract } from './eventLogContract.ts';
import { ensureEventsStream } from '../../events/jetstream/ensureStream.ts';
import { JetStreamEventLog } from './jetStreamEventLog.ts';
import { EVENTS_STREAM } from '../../events/jetstream/subjects.ts';

let server: NatsServer;
let nc: NatsConnection;

before(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});

after(async () => {
  await nc?.close();
  await server?.stop();
});

eventLogContract('jetstream', async () => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(EVENTS_STREAM).catch(() => false); // a fresh stream: positions start at 1
  await ensureEventsStream(jsm);
  const open = () => JetStreamEventLog.open({ nc, nodeId: 'contract-node', sessionId: randomUUID() });
  return {
    log: await open(),
    reopen: open,
    cleanup: async () => {},
  };
});
