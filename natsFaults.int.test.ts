import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { startNatsServer } from './devnet/nats/natsServer.ts';
import { TEST_PASSWORD, enableEthParams, startStack, startTestDevnet } from './devnet/testing/stack.ts';
import { systemClock } from './kernel/clock.ts';
import { EVENTS_STREAM, STATUS_BUCKET } from './events/jetstream/subjects.ts';
import { jetStreamSource, replay } from './events/replay/replay.ts';
import { kvDigest } from './events/replay/replayKv.ts';

/** Issue 4 fault test through the real service: nats-server dies mid-burst of 200 activations. */

test('kill nats-server during 200 activations: every event once and in order, the KV equals a replay', async () => {
  const server = await startNatsServer();
  const devnet = await startTestDevnet();
  const tickers = Array.from({ length: 200 }, (_, i) => `EVM${String(i).padStart(3, '0')}`);
  const coins = tickers.map((coin) => ({ coin, decimals: 18, protocol: { type: 'ETH', protocol_data: { chain_id: devnet.chainId } } }));
  const stack = await startStack({ devnet, extraCoins: coins, config: { nats: { url: server.url }, node_id: 'burst' }, clock: systemClock });
  const engine = { nc: undefined as Awaited<ReturnType<typeof connect>> | undefined };
  try {
    await stack.service.nats!.ready;
    const body = (ticker: string) => ({ mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'enable_eth_with_tokens', params: enableEthParams(stack, [], { ticker }) });
    const first = await Promise.all(tickers.slice(0, 100).map((t) => stack.post(body(t))));
    await server.kill(); // mid-burst: the rest is answered while NATS is down
    const second = await Promise.all(tickers.slice(100).map((t) => stack.post(body(t))));
    assert.ok([...first, ...second].every((a) => a.status === 200), 'the RPC keeps answering while NATS is down');
    await server.restart();
    await stack.service.nats!.publisher()!.whenCaughtUp();
    await stack.service.nats!.projector()!.whenCaughtUp();

    const nc = (engine.nc = await connect({ servers: server.url }));
    const jsm = await jetstreamManager(nc);
    const outbox: string[] = [];
    for await (const e of stack.service.log.read()) outbox.push(e.metadata.eventId);
    assert.equal((await jsm.streams.info(EVENTS_STREAM)).state.messages, outbox.length, 'as many messages as outbox events');

    const source = await jetStreamSource(nc, { node: 'burst' });
    const perSubject = new Map<string, number[]>();
    const ids = new Set<string>();
    for await (const item of source.events()) {
      ids.add(item.event.metadata.eventId);
      const seqs = perSubject.get(item.event.metadata.stream) ?? [];
      seqs.push(item.event.metadata.streamSeq);
      perSubject.set(item.event.metadata.stream, seqs);
    }
    assert.equal(ids.size, outbox.length, 'every event exactly once');
    assert.deepEqual([...ids].sort(), [...outbox].sort());
    for (const [stream, seqs] of perSubject) assert.deepEqual(seqs, seqs.map((_, i) => i + 1), `${stream} in order`);
    assert.equal(perSubject.size, 201, '200 coins and the node stream');

    const replayed = await replay(await jetStreamSource(nc, { node: 'burst' }), { node: 'burst' });
    const kv = await new Kvm(nc).open(STATUS_BUCKET);
    assert.equal(await kvDigest(kv, { node: 'burst' }), replayed.digest, 'the KV matches a replay');
    const sample = (await kv.get('burst.coin.EVM150'))?.json<{ state: string }>();
    assert.equal(sample?.state, 'active');
  } finally {
    await engine.nc?.close();
    await stack.stop();
    await devnet.stop();
    await server.stop();
  }
});
