import './silence.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsServer } from '../infra/testing/natsServer.ts';
import { measureEventToKv } from './natsLatency.ts';
import { measureRawRoundTrip } from './natsRawLatency.ts';
const server = await startNatsServer();
const dir = await mkdtemp(join(tmpdir(), 'nb-'));
try {
  const t0 = performance.now();
  const { result, messages } = await measureEventToKv({ url: server.url, dir, perSecond: 500, warmupEvents: 250, events: 1500 });
  console.log(JSON.stringify(result, null, 1), performance.now() - t0);
  const raw = await measureRawRoundTrip(server.url, messages, 500, 250);
  console.log(JSON.stringify(raw, null, 1));
} finally { await server.stop(); await rm(dir, { recursive: true, force: true }); }
