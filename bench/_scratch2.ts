import './silence.ts';
import { performance } from 'node:perf_hooks';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer } from '../infra/testing/natsServer.ts';
import { startProjector, nodeEventsFilter } from '../events/jetstream/projector.ts';
import { openStatusKv } from '../events/jetstream/statusKv.ts';
import { StatusWriter } from '../events/jetstream/projectorApply.ts';
import { decodeForProjection as decodeEventMessage } from '../events/jetstream/projectorMessage.ts';
import { EVENTS_STREAM, eventSubject } from '../events/jetstream/subjects.ts';
import { EventScript } from '../events/projections/eventScript.ts';
import { connectLikeService, freshEventsStream } from './natsSetup.ts';
import { ActivationWorkload } from './natsWorkload.ts';
const server = await startNatsServer();
const N = 3000;
try {
  const nc = await connectLikeService(server.url, 'x');
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const setup = async () => {
    await freshEventsStream(jsm);
    const s = new EventScript('n1');
    s.session();
    const w = new ActivationWorkload(3);
    for (let i = 0; i < N; i++) { const { stream, event } = w.next(); s.append(stream, event); }
    await Promise.all(s.events.map((e) => js.publish(eventSubject('n1', e.metadata.stream), JSON.stringify(e), { msgID: e.metadata.eventId })));
  };
  await setup();
  let t0 = performance.now();
  const p = await startProjector({ nc, durableName: 'p1', filter: nodeEventsFilter('n1') });
  await p.whenCaughtUp();
  console.log('real projector', (N * 1000) / (performance.now() - t0), p.stats());
  await p.stop();
  for (const variant of ['ackAck', 'ack', 'ackAck-mapN', 'nokv']) {
    await setup();
    const kv = await openStatusKv(nc);
    const writer = new StatusWriter(kv);
    await jsm.consumers.add(EVENTS_STREAM, { durable_name: 'v', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: nodeEventsFilter('n1'), max_ack_pending: variant === 'ackAck-mapN' ? 64 : 1 });
    const c = await js.consumers.get(EVENTS_STREAM, 'v');
    const msgs = await c.consume({ max_messages: 16 });
    t0 = performance.now();
    let n = 0; let tKv = 0; let tAck = 0; let tDec = 0; let tWait = 0; let last = performance.now();
    for await (const m of msgs) {
      const a = performance.now(); tWait += a - last;
      const d = decodeEventMessage(m.subject, m.data);
      const b = performance.now(); tDec += b - a;
      if (!d.ok) throw new Error(d.reason);
      if (variant !== 'nokv') await writer.project(d.event, d.nodeId);
      const c2 = performance.now(); tKv += c2 - b;
      if (variant === 'ack') m.ack(); else await m.ackAck();
      last = performance.now(); tAck += last - c2;
      if (++n === N + 1) break;
    }
    const el = performance.now() - t0;
    console.log(variant, { perSec: (n * 1000) / el, decUs: (tDec * 1000) / n, kvUs: (tKv * 1000) / n, ackUs: (tAck * 1000) / n, waitNextUs: (tWait * 1000) / n });
    await msgs.close();
  }
  await nc.close();
} finally { await server.stop(); }
