import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGatewayProxy, startTronNode, type EvmDevnet, type GatewayProxy, type TronNode } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { FakeHardwareWallet } from '../../devnet/hardware/fakeHardwareWallet.ts';
import { TEST_ADDRESS, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { startTask, untilFinished } from '../../devnet/testing/tasks.ts';

/**
 * Nodes with `gateway_proxy: true`, through the RPC, behind a devnet gateway proxy that verifies
 * every call's signed payload on its own (devnet/proxies/gatewayProxy.ts) and forwards good ones.
 * The service runs with the passphrase of the reference's test seed node "dummy-value-bob", so the
 * proxy must see that node's peer id as the signer.
 */

const BOB_SEED = 'dummy-value-bob';
/** The reference's peer id for the seed node with passphrase "dummy-value-bob". */
const BOB_PEER_ID = '12D3KooWEtuv7kmgGCC7oAQ31hB7AR5KkhT3eEWB2bP2roo3M7rY';

let devnet: EvmDevnet;
let tron: TronNode;
let proxy: GatewayProxy;
let tronProxy: GatewayProxy;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 5n }] });
  tron = await startTronNode({ evm: devnet });
  proxy = await startGatewayProxy({ target: devnet.url });
  tronProxy = await startGatewayProxy({ target: tron.url, forwardPath: true });
});
after(async () => {
  await proxy.stop();
  await tronProxy.stop();
  await tron.stop();
  await devnet.stop();
});

function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({ devnet, ...options, config: { passphrase: BOB_SEED, ...options.config } });
}

/** What the proxy saw during `work`. */
async function watching<T>(gateway: GatewayProxy, work: () => Promise<T>): Promise<{ value: T; accepted: number; refused: string[]; signers: string[] }> {
  const before = gateway.stats();
  const value = await work();
  const after = gateway.stats();
  return { value, accepted: after.accepted - before.accepted, refused: after.refused.slice(before.refused.length), signers: after.signers };
}

describe('gateway_proxy nodes', () => {
  test('enable_eth_with_tokens over HTTP: every call signed by the node\'s identity, one call per request, accepted', async () => {
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url, gateway_proxy: true }] };
      const seen = await watching(proxy, () => s.v2('enable_eth_with_tokens', params));
      assert.equal(seen.value.status, 200, JSON.stringify(seen.value.body));
      assert.deepEqual(seen.refused, []);
      assert.equal(seen.accepted, 2, 'eth_blockNumber and the balances\' deployless call, each its own signed request');
      assert.deepEqual(seen.signers, [BOB_PEER_ID]);
      const balance = await watching(proxy, () => s.legacy('my_balance', { coin: 'USDT-ERC20' }));
      assert.equal(balance.value.body.balance, '0');
      assert.equal(balance.accepted, 2, 'eth_blockNumber and aggregate3: the first read found the contract');
      assert.deepEqual(balance.refused, []);
    } finally {
      await s.stop();
    }
  });

  test('enable_eth_with_tokens over a WebSocket: each call carries its proxy_sign, accepted', async () => {
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.wsUrl, gateway_proxy: true }] };
      const seen = await watching(proxy, () => s.v2('enable_eth_with_tokens', params));
      assert.equal(seen.value.status, 200, JSON.stringify(seen.value.body));
      assert.deepEqual(seen.refused, []);
      assert.equal(seen.accepted, 2);
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).body.balance, '0');
    } finally {
      await s.stop();
    }
  });

  test('without the flag the proxy refuses (HTTP 401, a socket\'s bare text): Transport, nothing enabled', async () => {
    const s = await stack();
    try {
      for (const url of [proxy.url, proxy.wsUrl]) {
        // One call (the block height), so the request is an unsigned call, not a batch.
        const params = { ...enableEthParams(s, [], { get_balances: false }), nodes: [{ url }] };
        const seen = await watching(proxy, () => s.v2('enable_eth_with_tokens', params));
        assert.equal(seen.value.status, 502, JSON.stringify(seen.value.body));
        assert.equal(seen.value.body.error_type, 'Transport');
        assert.equal(seen.accepted, 0);
        if (url === proxy.url) {
          assert.match(seen.value.body.error, /HTTP 401 Unauthorized/);
          assert.deepEqual(seen.refused, ['missing X-Auth-Payload']);
        } else {
          assert.match(seen.value.body.error, /the node answered "Invalid payload\. missing field `proxy_sign`", not JSON-RPC/);
          assert.deepEqual(seen.refused, ['missing proxy_sign']);
        }
      }
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await s.stop();
    }
  });

  test('an expired signature is refused: the service\'s clock is a minute behind the proxy\'s', async () => {
    const s = await stack({ clock: new ManualClock(Date.now() - 60_000) });
    try {
      const params = { ...enableEthParams(s, []), nodes: [{ url: proxy.url, gateway_proxy: true }] };
      const seen = await watching(proxy, () => s.v2('enable_eth_with_tokens', params));
      assert.equal(seen.value.status, 502, JSON.stringify(seen.value.body));
      assert.equal(seen.value.body.error_type, 'Transport');
      assert.ok(seen.refused.length > 0 && seen.refused.every((why) => why === 'expired'), seen.refused.join());
    } finally {
      await s.stop();
    }
  });

  test('task::enable_eth with a gateway-proxy node: Ok', async () => {
    const s = await stack();
    try {
      const id = await startTask(s, { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url, gateway_proxy: true }] });
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
    } finally {
      await s.stop();
    }
  });

  test('a hardware-wallet task signs with the node\'s identity (no device prompt); without a passphrase it is refused', async () => {
    const fake = new FakeHardwareWallet({ connected: true });
    const params = (s: Stack) => ({ ...enableEthParams(s, []), priv_key_policy: 'Hardware', nodes: [{ url: proxy.url, gateway_proxy: true }] });
    const s = await stack({ hardware: async () => fake });
    try {
      const seen = await watching(proxy, async () => untilFinished(s, await startTask(s, params(s))));
      assert.equal(seen.value.result.status, 'Ok', JSON.stringify(seen.value.result));
      assert.deepEqual(seen.refused, []);
      assert.deepEqual(seen.signers, [BOB_PEER_ID]);
    } finally {
      await s.stop();
    }
    const bare = await startStack({ devnet, hardware: async () => fake, config: { passphrase: undefined } });
    try {
      const { result } = await untilFinished(bare, await startTask(bare, params(bare)));
      assert.equal(result.status, 'Error');
      assert.equal(result.details.error_type, 'PrivKeyNotAllowed');
      assert.match(result.details.error, /^nodes\[0\]\.gateway_proxy: requests to a gateway proxy are signed with the node's identity key, which is derived from the passphrase in MM2\.json, and none is configured$/);
    } finally {
      await bare.stop();
    }
  });

  test('TRON: a gateway-proxy node gets signed requests (full URL and body), accepted; unsigned ones refused', async () => {
    const s = await stack();
    try {
      const signed = await watching(tronProxy, () => s.v2('enable_eth_with_tokens', { ticker: 'TRX', nodes: [{ url: tronProxy.url, gateway_proxy: true }], erc20_tokens_requests: [] }));
      assert.equal(signed.value.status, 200, JSON.stringify(signed.value.body));
      assert.deepEqual(signed.refused, []);
      assert.equal(signed.accepted, 2, 'getnowblock and getaccount');
      assert.equal((await s.legacy('disable_coin', { coin: 'TRX' })).status, 200);
      const unsigned = await watching(tronProxy, () => s.v2('enable_eth_with_tokens', { ticker: 'TRX', nodes: [{ url: tronProxy.url }], erc20_tokens_requests: [] }));
      assert.equal(unsigned.value.status, 502, JSON.stringify(unsigned.value.body));
      assert.match(unsigned.value.body.error, /HTTP 401/);
    } finally {
      await s.stop();
    }
  });

  test('the signed payload never reaches the event log or an answer', async () => {
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, []), nodes: [{ url: `${proxy.url}/?key=node-secret`, gateway_proxy: true }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      const { readFile } = await import('node:fs/promises');
      const log = await readFile(`${s.dir}/db/events.log`, 'utf8');
      for (const text of [log, JSON.stringify(body)]) {
        assert.doesNotMatch(text, /signature_bytes|X-Auth-Payload|node-secret/i);
        assert.ok(!text.includes(BOB_PEER_ID));
      }
      assert.equal(body.result.eth_addresses_infos[TEST_ADDRESS], undefined, 'a different wallet than the funded one');
    } finally {
      await s.stop();
    }
  });
});
