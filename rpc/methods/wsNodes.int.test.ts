import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, startSilentNode, startSilentWsNode, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { cancelTask, startTask, untilFinished, untilStatus } from '../../devnet/testing/tasks.ts';

/**
 * EVM nodes over WebSocket JSON-RPC (`ws://` in a node's `url` or `ws_url`, and in legacy `urls`),
 * through the RPC, against the devnet's WebSocket front: same results, batching and failover as
 * HTTP, the per-node budget on the injected clock, and no socket left open by a coin that is gone.
 */

const NATIVE_WEI = 1_234_500_000_000_000_001n;
const USDT = 1_234_567_891n;

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ nativeWei: NATIVE_WEI, tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }, { symbol: 'DAI', decimals: 18, amount: 7n }] });
});
after(() => devnet.stop());

/** A fresh service on the shared devnet (with a token whose contract has no code). */
function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  const noCode = { coin: 'NOCODE-ERC20', protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: '0x000000000000000000000000000000000000dEaD' } } };
  return startStack({ devnet, extraCoins: [noCode], ...options });
}

/** Waits (real time, bounded) until the devnet sees `open` sockets: closes reach it asynchronously. */
async function untilOpenSockets(open: number, server: { webSockets(): { open: number } } = devnet): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (server.webSockets().open !== open) {
    if (Date.now() > deadline) throw new Error(`expected ${open} open socket(s), the server has ${server.webSockets().open}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Sockets the devnet accepted since `before`. */
function since(before: { accepted: number }) {
  const now = devnet.webSockets();
  return { accepted: now.accepted - before.accepted };
}

const wsNode = () => ({ url: devnet.wsUrl });

describe('EVM nodes over WebSocket', () => {
  test('enable_eth_with_tokens over a ws:// node: the HTTP result, one socket, kept for my_balance, closed on disable', async () => {
    const s = await stack();
    try {
      const start = devnet.webSockets();
      const { status, body } = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20']), nodes: [wsNode()] });
      assert.equal(status, 200, JSON.stringify(body));
      const info = body.result.eth_addresses_infos[TEST_ADDRESS];
      assert.deepEqual(info.balances, { spendable: '1.234500000000000001', unspendable: '0' });
      assert.deepEqual(body.result.erc20_addresses_infos[TEST_ADDRESS].balances, {
        'USDT-ERC20': { spendable: '1234.567891', unspendable: '0' },
        'DAI-ERC20': { spendable: '0.000000000000000007', unspendable: '0' },
      });
      assert.deepEqual(since(start), { accepted: 1 });
      assert.equal(devnet.webSockets().open, start.open + 1);

      for (const coin of ['ETH', 'USDT-ERC20']) {
        const balance = await s.legacy('my_balance', { coin });
        assert.equal(balance.status, 200, JSON.stringify(balance.body));
      }
      assert.equal((await s.legacy('my_balance', { coin: 'USDT-ERC20' })).body.balance, '1234.567891');
      assert.deepEqual(since(start), { accepted: 1 }, 'my_balance reuses the activation\'s socket');

      const disabled = await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      await untilOpenSockets(start.open);
    } finally {
      await s.stop();
    }
  });

  test('one read is one frame: a platform and two tokens go out as one JSON-RPC batch over the socket', async () => {
    const s = await stack();
    const frames: unknown[] = [];
    const { WebSocketServer } = await import('ws');
    const { createServer } = await import('node:http');
    // A pass-through socket front that records each frame it forwards to the devnet.
    const server = createServer();
    new WebSocketServer({ server }).on('connection', (ws) => {
      ws.on('message', async (data) => {
        const text = data.toString();
        frames.push(JSON.parse(text));
        const answer = await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        ws.send(await answer.text());
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20']), nodes: [{ url: `ws://127.0.0.1:${port}` }] });
      assert.equal(status, 200, JSON.stringify(body));
      // Once answered, the coin's balance watcher subscribes to the node's heads on the same socket.
      const activation = frames.filter((f) => (f as { method?: string }).method !== 'eth_subscribe');
      assert.equal(activation.length, 1);
      const methods = (activation[0] as { method: string }[]).map((c) => c.method).sort();
      assert.deepEqual(methods, ['eth_blockNumber', 'eth_call']); // the balances in one deployless call
    } finally {
      await s.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('ws_url beside a refused HTTP url: the node\'s socket serves the activation (http → ws)', async () => {
    const s = await stack();
    const start = devnet.webSockets();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: await refusedUrl(), ws_url: devnet.wsUrl }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.result.erc20_addresses_infos[TEST_ADDRESS].balances['USDT-ERC20'].spendable, '1234.567891');
      assert.deepEqual(since(start), { accepted: 1 });
    } finally {
      await s.stop();
    }
    await untilOpenSockets(start.open);
  });

  test('a node with url and ws_url reads over its url, as the reference does; ws_url waits as a fallback', async () => {
    const s = await stack();
    try {
      const start = devnet.webSockets();
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: devnet.url, ws_url: devnet.wsUrl }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(since(start), { accepted: 0 });
    } finally {
      await s.stop();
    }
  });

  test('a refused ws:// node is skipped at once for the HTTP one (ws → http)', async () => {
    const s = await stack();
    try {
      const refusedWs = (await refusedUrl()).replace(/^http/, 'ws');
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: refusedWs }, { url: devnet.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).body.balance, '1.234500000000000001');
    } finally {
      await s.stop();
    }
  });

  test('a silent ws node (socket open, no answers) costs exactly its budget on the injected clock, then its socket is closed', async () => {
    const clock = new ManualClock(Date.now());
    const silent = await startSilentWsNode();
    const s = await stack({ clock, evm: { nodeTimeoutMs: 10_000 } });
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: silent.url }, { url: devnet.url }] };
      const pending = s.v2('enable_eth_with_tokens', params);
      while (silent.webSockets().messages === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(9_999);
      assert.equal(clock.pendingTimers, 1, 'still waiting on the silent node');
      assert.equal(silent.webSockets().open, 1);
      clock.advance(1);
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
      await untilOpenSockets(0, silent);
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('a ws:// node that never completes the handshake costs its budget too, and the attempt is torn down', async () => {
    const clock = new ManualClock(Date.now());
    const silent = await startSilentNode();
    const s = await stack({ clock, evm: { nodeTimeoutMs: 10_000 } });
    try {
      const params = { ...enableEthParams(s, []), nodes: [{ url: silent.url.replace(/^http/, 'ws') }, { url: devnet.url }] };
      const pending = s.v2('enable_eth_with_tokens', params);
      while (silent.connections() === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(10_000);
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
      const deadline = Date.now() + 5_000;
      while (silent.sockets().some((x) => x.open)) {
        if (Date.now() > deadline) throw new Error('the handshake socket is still open');
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('every node down: Transport names each endpoint by origin, ws ones included', async () => {
    const s = await stack();
    try {
      const refusedWs = `${(await refusedUrl()).replace(/^http/, 'ws')}/v3/secret-api-key`;
      const params = { ...enableEthParams(s, []), nodes: [{ url: await refusedUrl(), ws_url: refusedWs }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 502, JSON.stringify(body));
      assert.equal(body.error_type, 'Transport');
      assert.match(body.error, /all 2 node\(s\) failed: http:\/\/127\.0\.0\.1:\d+: connection failed \(ECONNREFUSED\); ws:\/\/127\.0\.0\.1:\d+: connection failed \(ECONNREFUSED\)/);
      assert.doesNotMatch(JSON.stringify(body), /secret-api-key/);
    } finally {
      await s.stop();
    }
  });

  test('a failed activation (a token without a contract) closes the socket it opened', async () => {
    const s = await stack();
    try {
      const start = devnet.webSockets();
      const { status, body } = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ['NOCODE-ERC20']), nodes: [wsNode()] });
      assert.equal(status, 502, JSON.stringify(body));
      assert.match(body.error, /NOCODE-ERC20/);
      assert.deepEqual(since(start), { accepted: 1 });
      await untilOpenSockets(start.open);
    } finally {
      await s.stop();
    }
  });

  test('a passive platform\'s socket closes when it is re-activated, and when its last token goes', async () => {
    const s = await stack();
    const start = devnet.webSockets();
    const { open } = start;
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [wsNode()] };
      assert.equal((await s.v2('enable_eth_with_tokens', params)).status, 200);
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      await untilOpenSockets(open + 1); // the passive platform keeps its socket for its token
      assert.equal((await s.legacy('my_balance', { coin: 'USDT-ERC20' })).body.balance, '1234.567891');
      const again = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), nodes: [wsNode()] });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(devnet.webSockets().accepted, start.accepted + 2);
      await untilOpenSockets(open + 1); // the new coin's socket; the replaced one closed
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      assert.equal((await s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      await untilOpenSockets(open);
    } finally {
      await s.stop();
    }
  });

  test('legacy enable over a ws:// url: balance, my_balance on the same socket, closed on disable', async () => {
    const s = await stack();
    try {
      const start = devnet.webSockets();
      const { status, body } = await s.legacy('enable', { coin: 'ETH', urls: [devnet.wsUrl], swap_contract_address: SWAP_CONTRACT });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.balance, '1.234500000000000001');
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).body.balance, '1.234500000000000001');
      assert.deepEqual(since(start), { accepted: 1 });
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      await untilOpenSockets(start.open);
    } finally {
      await s.stop();
    }
  });

  test('legacy enable: a refused ws:// url fails over to the next url', async () => {
    const s = await stack();
    try {
      const refusedWs = (await refusedUrl()).replace(/^http/, 'ws');
      const { status, body } = await s.legacy('enable', { coin: 'USDT-ERC20', urls: [refusedWs, devnet.url], swap_contract_address: SWAP_CONTRACT });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.balance, '1234.567891');
    } finally {
      await s.stop();
    }
  });

  test('task::enable_eth over a ws:// node; cancelling a task stuck on a silent socket closes it', async () => {
    const silent = await startSilentWsNode();
    const s = await stack();
    const start = devnet.webSockets();
    try {
      const id = await startTask(s, { ...enableEthParams(s, ['USDT-ERC20']), nodes: [wsNode()] });
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.equal(result.details.erc20_addresses_infos[TEST_ADDRESS].balances['USDT-ERC20'].spendable, '1234.567891');

      assert.equal((await s.legacy('disable_coin', { coin: 'ETH', force_disable: true })).status, 200);
      await untilOpenSockets(start.open);
      const stuck = await startTask(s, { ...enableEthParams(s, []), nodes: [{ url: silent.url }] });
      await untilStatus(s, stuck, 'InProgress');
      while (silent.webSockets().messages === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal((await cancelTask(s, stuck)).status, 200);
      await untilOpenSockets(0, silent);
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('stopping the service closes the sockets of enabled coins', async () => {
    const s = await stack();
    const start = devnet.webSockets();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), nodes: [wsNode()] })).status, 200);
      assert.equal(devnet.webSockets().open, start.open + 1);
    } finally {
      await s.stop();
    }
    await untilOpenSockets(start.open);
  });

  test('bad node URLs are InvalidRequest naming the field; TRON still refuses WebSocket', async () => {
    const s = await stack({ tron: true });
    try {
      const cases: [unknown, RegExp][] = [
        [[{ url: 'ftp://node.example/SECRET' }], /^nodes\[0\]\.url ftp:\/\/node\.example: expected an http\(s\):\/\/ or ws\(s\):\/\/ URL$/],
        [[{ url: devnet.url, ws_url: 'https://node.example/SECRET' }], /^nodes\[0\]\.ws_url https:\/\/node\.example: expected a ws:\/\/ or wss:\/\/ URL$/],
      ];
      for (const [nodes, message] of cases) {
        const { status, body } = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), nodes });
        assert.equal(status, 400, JSON.stringify(body));
        assert.equal(body.error_type, 'InvalidRequest');
        assert.match(body.error_data, message);
      }
      const legacy = await s.legacy('enable', { coin: 'ETH', urls: ['ftp://node.example/SECRET'], swap_contract_address: SWAP_CONTRACT });
      assert.deepEqual(legacy.body, { error: 'urls[0] ftp://node.example: invalid node address, only http(s):// and ws(s):// nodes are supported' });
      const tron = await s.v2('enable_eth_with_tokens', { ticker: 'TRX', nodes: [{ url: devnet.wsUrl }], erc20_tokens_requests: [] });
      assert.equal(tron.status, 400);
      assert.match(tron.body.error, /TRON nodes are HTTP\(S\) API base URLs \(no WebSocket, no gRPC\)/);
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await s.stop();
    }
  });
});
