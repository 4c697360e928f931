import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { startSilentNode } from '../../devnet/index.ts';
import { EvmNodeError } from './evmNodeError.ts';
import { WsPool } from './wsPool.ts';

/**
 * The socket client on its own, against a scripted WebSocket server on 127.0.0.1: id rewriting
 * when requests share a socket, batches, a node's bare-text refusal, and the pool's openings.
 */

type Script = (ws: WebSocket, text: string) => void;
let server: Server;
let url: string;
let script: Script = () => {};
const sockets = new Set<WebSocket>();
let accepted = 0;

before(async () => {
  server = createServer();
  new WebSocketServer({ server }).on('connection', (ws) => {
    accepted += 1;
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => script(ws, data.toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/key/SECRET`;
});
after(async () => {
  for (const ws of sockets) ws.terminate();
  await new Promise((resolve) => server.close(resolve));
});

const signal = () => new AbortController().signal;
const call = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: [] });

describe('JSON-RPC over a WebSocket', () => {
  it('requests sharing a socket with the same id get their own answers, ids restored', async () => {
    const held: { ws: WebSocket; message: { id: number; method: string } }[] = [];
    script = (ws, text) => {
      held.push({ ws, message: JSON.parse(text) });
      if (held.length < 2) return;
      // Answers in reverse order, each echoing the method it was asked.
      for (const { ws: to, message } of held.reverse()) to.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: message.method }));
    };
    const pool = new WsPool();
    const channel = await pool.channel(url, signal());
    const [a, b] = await Promise.all([channel.request(call(1, 'first'), signal()), channel.request(call(1, 'second'), signal())]);
    assert.deepEqual(JSON.parse(a), { jsonrpc: '2.0', id: 1, result: 'first' });
    assert.deepEqual(JSON.parse(b), { jsonrpc: '2.0', id: 1, result: 'second' });
    assert.notEqual(held[0]!.message.id, held[1]!.message.id, 'the socket carries distinct ids');
    pool.close();
  });

  it('a batch goes out as one frame and comes back as one array, in the node\'s order, ids restored', async () => {
    const frames: string[] = [];
    script = (ws, text) => {
      frames.push(text);
      const calls = JSON.parse(text) as { id: number }[];
      ws.send(JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: `0x${c.id.toString(16)}` })).reverse()));
    };
    const pool = new WsPool();
    const channel = await pool.channel(url, signal());
    const answer = JSON.parse(await channel.request(`[${call(7, 'a')},${call(8, 'b')}]`, signal())) as { id: number }[];
    assert.equal(frames.length, 1);
    assert.deepEqual(answer.map((r) => r.id), [8, 7]);
    pool.close();
  });

  it('a bare-text answer (a proxy\'s refusal) fails the pending requests as a node error and closes the socket', async () => {
    script = (ws) => ws.send('401 Unauthorized');
    const pool = new WsPool();
    const channel = await pool.channel(url, signal());
    await assert.rejects(channel.request(call(1, 'x'), signal()), (e) => e instanceof EvmNodeError && e.message === 'the node answered "401 Unauthorized", not JSON-RPC');
    assert.equal(channel.closed, true);
    assert.equal(pool.size, 0);
    pool.close();
  });

  it('an abandoned request fails with the abort reason and its late answer is ignored', async () => {
    let reply: (() => void) | undefined;
    script = (ws, text) => (reply = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(text).id, result: 'late' })));
    const pool = new WsPool();
    const channel = await pool.channel(url, signal());
    const controller = new AbortController();
    const pending = channel.request(call(1, 'x'), controller.signal);
    while (reply === undefined) await new Promise((r) => setTimeout(r, 2));
    controller.abort(new Error('budget spent'));
    await assert.rejects(pending, /budget spent/);
    reply();
    script = (ws, text) => ws.send(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(text).id, result: 'fresh' }));
    assert.equal(JSON.parse(await channel.request(call(1, 'y'), signal())).result, 'fresh');
    pool.close();
  });
});

describe('the pool of a coin\'s sockets', () => {
  it('concurrent reads share one opening; closing the pool closes the socket and refuses new ones', async () => {
    const before = accepted;
    const pool = new WsPool();
    const [a, b] = await Promise.all([pool.channel(url, signal()), pool.channel(url, signal())]);
    assert.equal(a, b);
    assert.equal(accepted - before, 1);
    assert.equal(await pool.channel(url, signal()), a);
    pool.close();
    assert.equal(a.closed, true);
    await assert.rejects(pool.channel(url, signal()), EvmNodeError);
  });

  it('an opening lives while one read still waits for it, and is torn down when the last gives up', async () => {
    const silent = await startSilentNode();
    try {
      const pool = new WsPool();
      const silentUrl = silent.url.replace(/^http/, 'ws');
      const first = new AbortController();
      const second = new AbortController();
      const waits = [pool.channel(silentUrl, first.signal), pool.channel(silentUrl, second.signal)];
      while (silent.connections() === 0) await new Promise((r) => setTimeout(r, 2));
      first.abort(new Error('first gave up'));
      await assert.rejects(waits[0]!, /first gave up/);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(silent.sockets()[0]!.open, true, 'still opening for the second read');
      second.abort(new Error('second gave up'));
      await assert.rejects(waits[1]!, /second gave up/);
      const deadline = Date.now() + 5_000;
      while (silent.sockets()[0]!.open) {
        if (Date.now() > deadline) throw new Error('the handshake socket was not closed');
        await new Promise((r) => setTimeout(r, 2));
      }
      assert.equal(silent.connections(), 1);
      pool.close();
    } finally {
      await silent.stop();
    }
  });
});
