import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { refusedUrl } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { systemClock } from '../../kernel/clock.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import { ElectrumConnection, ElectrumConnectionError, ElectrumRpcError, compareVersions } from './electrumConnection.ts';
import { ElectrumPool, ElectrumUnavailableError } from './electrumPool.ts';
import type { ElectrumServer as ServerSpec } from './electrumChannel.ts';

let node: Litecoind;
let server: ElectrumServer;
before(async () => {
  node = await startLitecoind({ initialBlocks: 1 });
  server = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
});
after(async () => {
  await server?.stop();
  await node?.stop();
});

const options = (clock = systemClock) => ({ clock, requestTimeoutMs: 20_000, pingIntervalMs: 0, clientName: 'test', tls: {} });
const spec = (url: string): ServerSpec => ({ url, protocol: 'TCP' });
const dead = async () => (await refusedUrl()).replace('http://', '');

describe('ElectrumConnection', () => {
  test('negotiates the version, batches in one message, and a server error leaves it open', async () => {
    const c = await ElectrumConnection.open(spec(server.tcp!), options(), new AbortController().signal);
    try {
      assert.equal(c.protocolVersion, '1.4');
      assert.equal(c.serverSoftware, 'devnet-electrum 0.1');
      const [tip, fee] = await c.batch([{ method: 'blockchain.headers.subscribe', params: [] }, { method: 'blockchain.relayfee', params: [] }]);
      assert.equal((tip as { height: number }).height, 1);
      assert.equal(typeof fee, 'number');
      await assert.rejects(c.request('no.such.method', []), (e) => e instanceof ElectrumRpcError && e.code === -32601);
      assert.equal(c.closedReason, undefined);
      assert.equal(await c.request('server.ping', []), null);
    } finally {
      c.close();
    }
  });

  test('a silent server fails the attempt after the request timeout (injected clock), not before', async () => {
    const silent = await startElectrumServer({ litecoind: node, transports: ['TCP'], mode: 'silent' });
    const clock = new ManualClock();
    try {
      let settled = false;
      const attempt = ElectrumConnection.open(spec(silent.tcp!), options(clock), new AbortController().signal).finally(() => (settled = true));
      await eventually(() => silent.hits.includes('server.version'), 'server.version to be sent');
      clock.advance(19_999);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(settled, false);
      clock.advance(1);
      await assert.rejects(attempt, (e) => e instanceof ElectrumConnectionError && /no answer within 20000 ms/.test(e.message));
    } finally {
      await silent.stop();
    }
  });

  test('pings on the injected clock keep the connection checked', async () => {
    const clock = new ManualClock();
    const c = await ElectrumConnection.open(spec(server.tcp!), { ...options(clock), pingIntervalMs: 30_000 }, new AbortController().signal);
    try {
      const before = server.hits.filter((h) => h === 'server.ping').length;
      clock.advance(30_000);
      await eventually(() => server.hits.filter((h) => h === 'server.ping').length === before + 1, 'a ping');
    } finally {
      c.close();
    }
  });

  test('an aborted request rejects with the abort reason; the connection stays usable', async () => {
    const c = await ElectrumConnection.open(spec(server.tcp!), options(), new AbortController().signal);
    try {
      const controller = new AbortController();
      const pending = c.request('blockchain.headers.subscribe', [], controller.signal);
      controller.abort(new Error('stop'));
      await assert.rejects(pending, /stop/);
      assert.equal(((await c.request('blockchain.headers.subscribe', [])) as { height: number }).height, 1);
    } finally {
      c.close();
    }
  });

  test('compareVersions is numeric', () => {
    assert.ok(compareVersions('1.10', '1.4') > 0);
    assert.ok(compareVersions('1.2', '1.4') < 0);
    assert.equal(compareVersions('1.4', '1.4.0'), 0);
  });
});

describe('ElectrumPool', () => {
  test('a failed server is suspended with backoff and jitter, then retried', async () => {
    const clock = new ManualClock();
    const url = await dead();
    const pool = new ElectrumPool({ servers: [spec(url)], minConnected: 1, maxConnected: 1, clock, random: () => 0.5, pingIntervalMs: 0 });
    try {
      await assert.rejects(pool.request('server.ping', []), (e) => e instanceof ElectrumUnavailableError && /ECONNREFUSED/.test(e.message));
      // suspended 10 s (jitter 0.5 → ×1.0): a request now fails at once without trying it
      await assert.rejects(pool.request('server.ping', []), /suspended, retry in 10 s/);
      assert.deepEqual(pool.status().map((s) => s.state), ['suspended']);
      clock.advance(10_000); // the refill retries it (refused again): the next suspension is 20 s
      assert.match(await untilError(pool, /retry in 20 s/), /ECONNREFUSED/);
    } finally {
      pool.close();
    }
  });

  test('requests go to the highest-priority open server; a dropped connection fails over', async () => {
    const second = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
    const pool = new ElectrumPool({ servers: [spec(server.tcp!), spec(second.tcp!)], minConnected: 2, maxConnected: 2, clock: systemClock, pingIntervalMs: 0 });
    try {
      await pool.request('server.ping', []);
      await eventually(() => pool.status().every((s) => s.state === 'connected'), 'both connected (min_connected 2)');
      const hitsBefore = second.hits.length;
      await pool.request('blockchain.relayfee', []);
      assert.equal(second.hits.length, hitsBefore, 'the first server has priority');
      server.setMode('refuse');
      await server.stop().then(async () => {
        server = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
      });
      assert.equal(typeof (await pool.request('blockchain.relayfee', [])), 'number');
      assert.ok(second.hits.length > hitsBefore, 'served by the second server');
    } finally {
      pool.close();
      await second.stop();
    }
  });
});

/** Polls a request until it fails with a message matching `pattern`; returns that message. */
async function untilError(pool: ElectrumPool, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const message = await pool.request('server.ping', []).then(() => 'answered', (e: Error) => e.message);
    if (pattern.test(message)) return message;
    if (Date.now() > deadline) throw new Error(`last answer: ${message}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
