import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { refusedUrl, startSilentNode, startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { enableEthWithTokensResult } from '../../spec/enableEthWithTokens.ts';
import {
  TEST_ADDRESS,
  TEST_PASSPHRASE,
  TEST_PASSWORD,
  enableEthParams,
  startStack,
  startTestDevnet,
  type Stack,
} from '../../devnet/testing/stack.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: 1_234_500_000_000_000_001n,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }, { symbol: 'NIL', decimals: 8, amount: 0n }],
  });
});
after(() => devnet.stop());

/** A fresh service (new dbdir, nothing active) on the shared devnet. */
async function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({
    devnet,
    extraCoins: [
      { coin: 'KMD', protocol: { type: 'UTXO' }, pubtype: 60 },
      { coin: 'BROKEN', protocol: { type: 'ETH', protocol_data: { chain_id: 'one' } } },
      { coin: 'FOO-TOKEN', protocol: { type: 'FOOCHAIN' } },
      { coin: 'BNB-TOKEN', protocol: { type: 'ERC20', protocol_data: { platform: 'BNB', contract_address: devnet.tokens[0]!.address } } },
      { coin: 'LOWER-ERC20', protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: devnet.tokens[0]!.address.toLowerCase() } } },
      { coin: 'NOCODE-ERC20', protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: '0x000000000000000000000000000000000000dEaD' } } },
      // no `decimals`: read from the chain in the same batch
      { coin: 'DAI-NODEC', protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: devnet.tokens[1]!.address } } },
    ],
    ...options,
  });
}

async function enabledTickers(s: Stack): Promise<string[]> {
  const { body } = await s.v2('get_enabled_coins');
  return body.result.coins.map((c: { ticker: string }) => c.ticker).sort();
}

describe('enable_eth_with_tokens on a real devnet', () => {
  test('activates ETH with tokens: Iguana result shape with exact balances', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20', 'NIL-ERC20', 'DAI-NODEC']));
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.mmrpc, '2.0');
      assert.equal(body.id, null);
      const result: any = body.result;
      assert.ok(enableEthWithTokensResult.check(body.result), JSON.stringify(enableEthWithTokensResult.firstProblem(result)));
      const blockNow = Number(BigInt((await devnet.request('eth_blockNumber', [])) as string));
      assert.equal(result.current_block, blockNow);
      const eth = result.eth_addresses_infos[TEST_ADDRESS];
      assert.deepEqual(eth.derivation_method, { type: 'Iguana' });
      assert.match(eth.pubkey, /^04[0-9a-f]{128}$/);
      assert.deepEqual(eth.balances, { spendable: '1.234500000000000001', unspendable: '0' });
      assert.deepEqual(result.erc20_addresses_infos[TEST_ADDRESS], {
        derivation_method: { type: 'Iguana' },
        pubkey: eth.pubkey,
        balances: {
          'USDT-ERC20': { spendable: '1234.567891', unspendable: '0' },
          'DAI-ERC20': { spendable: '5.000000000000000001', unspendable: '0' },
          'NIL-ERC20': { spendable: '0', unspendable: '0' },
          'DAI-NODEC': { spendable: '5.000000000000000001', unspendable: '0' },
        },
      });
      assert.deepEqual(result.nfts_infos, {});
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'DAI-NODEC', 'ETH', 'NIL-ERC20', 'USDT-ERC20']);
    } finally {
      await s.stop();
    }
  });

  test('get_balances false: tickers instead of balances, and only the block is read', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20'], { get_balances: false }), nodes: [{ url: proxy.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(Object.keys(body.result.eth_addresses_infos[TEST_ADDRESS]).sort(), ['derivation_method', 'pubkey']);
      assert.deepEqual(body.result.erc20_addresses_infos[TEST_ADDRESS].tickers, ['USDT-ERC20', 'DAI-ERC20']);
      assert.equal(body.result.erc20_addresses_infos[TEST_ADDRESS].balances, undefined);
      assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1 });
      // with no tokens the token info is an empty list / empty map
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const none = await s.v2('enable_eth_with_tokens', { ...params, erc20_tokens_requests: [] });
      assert.deepEqual(none.body.result.erc20_addresses_infos[TEST_ADDRESS].tickers, []);
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const noneWithBalances = await s.v2('enable_eth_with_tokens', { ...params, erc20_tokens_requests: [], get_balances: true });
      assert.deepEqual(noneWithBalances.body.result.erc20_addresses_infos[TEST_ADDRESS].balances, {});
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('reads block, native and every token balance in one batched round trip, no eth_chainId', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20', 'NIL-ERC20']), nodes: [{ url: proxy.url }] };
      const { status } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200);
      assert.equal(proxy.stats().httpRequests, 1);
      // The native and token balances in one deployless call (the node is new).
      assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 });
      assert.equal(proxy.stats().callsWithoutTo, 1);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('above the batch size the calls go out as concurrent chunks', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 30 });
    const s = await stack({ evm: { batchSize: 1 } });
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20', 'NIL-ERC20']), nodes: [{ url: proxy.url }] };
      assert.equal((await s.v2('enable_eth_with_tokens', params)).status, 200);
      assert.equal(proxy.stats().rpcCalls, 2); // block, the deployless call
      assert.equal(proxy.stats().httpRequests, 2); // ceil(2 / 1)
      assert.equal(proxy.stats().maxInFlight, 2);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('a second activation of an active platform is PlatformIsAlreadyActivated', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20']));
      assert.equal(status, 400);
      assert.equal(body.error_type, 'PlatformIsAlreadyActivated');
      assert.equal(body.error_data, 'ETH');
      assert.equal(body.error, 'ETH');
      assert.deepEqual(await enabledTickers(s), ['ETH']);
    } finally {
      await s.stop();
    }
  });

  test('two concurrent activations of one ticker: exactly one proceeds, chain work once', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 20 });
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: proxy.url }] };
      const answers = await Promise.all([s.v2('enable_eth_with_tokens', params), s.v2('enable_eth_with_tokens', params)]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
      assert.equal(answers.find((a) => a.status === 400)!.body.error_type, 'PlatformIsAlreadyActivated');
      assert.equal(proxy.stats().httpRequests, 1);
      // the same in one batch body
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      proxy.reset();
      const call = { mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'enable_eth_with_tokens', params };
      const batch = await s.post([call, call]);
      assert.deepEqual(batch.body.map((a: any) => a.error_type ?? 'ok').sort(), ['PlatformIsAlreadyActivated', 'ok']);
      assert.equal(proxy.stats().httpRequests, 1);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('a refused first node is skipped at once', async () => {
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: await refusedUrl() }, { url: devnet.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
    } finally {
      await s.stop();
    }
  });

  test('a silent first node is abandoned after the per-node timeout (injected clock)', async () => {
    const clock = new ManualClock();
    const silent = await startSilentNode();
    const s = await stack({ clock, evm: { nodeTimeoutMs: 10_000 } });
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: silent.url }, { url: devnet.url }] };
      const pending = s.v2('enable_eth_with_tokens', params);
      while (silent.connections() === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(9_999);
      assert.equal(clock.pendingTimers, 1, 'still waiting on the silent node');
      clock.advance(1);
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('all nodes down: Transport (502), nothing registered, node URLs not echoed past their origin', async () => {
    const s = await stack();
    try {
      const refused = await refusedUrl();
      const params = { ...enableEthParams(s, []), nodes: [{ url: `${refused}/v3/secret-api-key` }, { url: await refusedUrl() }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 502);
      assert.equal(body.error_type, 'Transport');
      assert.equal(typeof body.error_data, 'string');
      assert.match(body.error, /all 2 node\(s\) failed/);
      assert.doesNotMatch(JSON.stringify(body), /secret-api-key/);
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200, 'can activate after a failure');
    } finally {
      await s.stop();
    }
  });

  test('a token whose contract does not answer aborts the whole activation', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20', 'NOCODE-ERC20']));
      assert.equal(status, 502);
      assert.equal(body.error_type, 'Transport');
      assert.match(body.error, /NOCODE-ERC20/);
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
    }
  });

  const badRequests: [string, (s: Stack) => Record<string, unknown>, number, string, unknown][] = [
    ['unknown platform', (s) => enableEthParams(s, [], { ticker: 'NOPE' }), 400, 'PlatformConfigIsNotFound', 'NOPE'],
    ['unparsable platform protocol', (s) => enableEthParams(s, [], { ticker: 'BROKEN' }), 500, 'CoinProtocolParseError', undefined],
    ['non-EVM platform', (s) => enableEthParams(s, [], { ticker: 'KMD' }), 400, 'UnexpectedPlatformProtocol', { ticker: 'KMD', protocol: { type: 'UTXO' } }],
    ['unknown token', (s) => enableEthParams(s, ['USDT-ERC20', 'NOPE-ERC20']), 400, 'TokenConfigIsNotFound', 'NOPE-ERC20'],
    ['unparsable token protocol', (s) => enableEthParams(s, ['FOO-TOKEN']), 500, 'TokenProtocolParseError', undefined],
    ['token of a non-token protocol', (s) => enableEthParams(s, ['KMD']), 400, 'UnexpectedTokenProtocol', { ticker: 'KMD', protocol: { type: 'UTXO' } }],
    ['token address not EIP-55', (s) => enableEthParams(s, ['LOWER-ERC20']), 400, 'UnexpectedTokenProtocol', undefined],
    ['token of another platform', (s) => enableEthParams(s, ['BNB-TOKEN']), 400, 'PlatformCoinMismatch', undefined],
    ['no nodes', (s) => ({ ...enableEthParams(s, ['USDT-ERC20']), nodes: [] }), 400, 'AtLeastOneNodeRequired', 'Enable request for ETH coin must have at least 1 node'],
    ['node url of another scheme', (s) => ({ ...enableEthParams(s, []), nodes: [{ url: 'ftp://example.invalid' }] }), 400, 'InvalidRequest', undefined],
    ['ws_url that is not ws(s)', (s) => ({ ...enableEthParams(s, []), nodes: [{ url: 'http://127.0.0.1:9', ws_url: 'https://example.invalid' }] }), 400, 'InvalidRequest', undefined],
    ['missing ticker', (s) => { const { ticker: _, ...rest } = enableEthParams(s, []); return rest; }, 400, 'InvalidRequest', undefined],
    ['nodes of the wrong type', (s) => ({ ...enableEthParams(s, []), nodes: 'http://x' }), 400, 'InvalidRequest', undefined],
    ['missing swap contract', (s) => { const { swap_contract_address: _, ...rest } = enableEthParams(s, []); return rest; }, 400, 'InvalidRequest', undefined],
    ['BrowserWallet rpc_mode', (s) => enableEthParams(s, [], { rpc_mode: 'BrowserWallet' }), 400, 'InvalidRequest', undefined],
    ['Hardware key outside a task', (s) => enableEthParams(s, [], { priv_key_policy: 'Hardware' }), 500, 'PrivKeyNotAllowed', undefined],
    ['RemoteWallet without a session', (s) => enableEthParams(s, [], { priv_key_policy: { type: 'RemoteWallet' } }), 500, 'PrivKeyNotAllowed', undefined],
    ['data with a policy other than RemoteWallet', (s) => enableEthParams(s, [], { priv_key_policy: { type: 'ContextPrivKey', data: 'abcd' } }), 400, 'InvalidRequest', undefined],
    ['zero swap contract', (s) => enableEthParams(s, [], { swap_contract_address: ZERO }), 400, 'InvalidRequest', "params.swap_contract_address can't be zero address"],
    ['zero fallback swap contract', (s) => enableEthParams(s, [], { fallback_swap_contract: ZERO }), 400, 'InvalidRequest', "params.fallback_swap_contract can't be zero address"],
    ['another address than the Iguana key\'s one', (s) => enableEthParams(s, [], { path_to_address: { account_id: 0, chain: 'External', address_id: 1 } }), 500, 'UnexpectedDerivationMethod', undefined],
    ['a scan of the Iguana key', (s) => enableEthParams(s, [], { scan_policy: 'scan' }), 500, 'UnexpectedDerivationMethod', undefined],
    ['a gap limit for the Iguana key', (s) => enableEthParams(s, [], { gap_limit: 5 }), 500, 'UnexpectedDerivationMethod', undefined],
    ['more addresses than the Iguana key has', (s) => enableEthParams(s, [], { min_addresses_number: 3 }), 500, 'UnexpectedDerivationMethod', undefined],
  ];

  test('every bad request gets its error type and status, and leaves nothing registered', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await stack();
    try {
      for (const [name, params, status, errorType, data] of badRequests) {
        const p = params(s);
        if (Array.isArray(p.nodes) && p.nodes.length === 1 && (p.nodes[0] as { url: string }).url === devnet.url) p.nodes = [{ url: proxy.url }];
        const answer = await s.v2('enable_eth_with_tokens', p);
        assert.equal(answer.status, status, `${name}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error_type, errorType, name);
        if (data !== undefined) assert.deepEqual(answer.body.error_data, data, name);
        if (errorType === 'PlatformCoinMismatch') assert.equal('error_data' in answer.body, false, name);
        if (errorType === 'InvalidRequest') assert.match(answer.body.error, /params\.|nodes\[0\]|rpc_mode|ticker/, name);
        assert.deepEqual(await enabledTickers(s), [], name);
      }
      const nonEvm = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { ticker: 'KMD' }));
      assert.equal(nonEvm.body.error, 'Unexpected platform protocol UTXO for KMD: enable_eth_with_tokens activates ETH and TRX platforms only');
      assert.equal(proxy.stats().httpRequests, 0, 'no chain work for a request that fails validation');
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20']))).status, 200);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('the fallback swap contract may be left out or null: the activation records it as null; an Iguana key takes the default path_to_address', async () => {
    for (const fallback of [{}, { fallback_swap_contract: null }]) {
      const s = await stack();
      try {
        const { fallback_swap_contract: _, ...params } = enableEthParams(s, ['USDT-ERC20']);
        const defaultPath = { path_to_address: { account_id: 0, chain: 'External', address_id: 0 }, gap_limit: 20, scan_policy: 'scan_if_new_wallet' };
        const { status, body } = await s.v2('enable_eth_with_tokens', { ...params, ...fallback, ...defaultPath });
        assert.equal(status, 200, JSON.stringify(body));
        assert.deepEqual(Object.keys(body.result.eth_addresses_infos), [TEST_ADDRESS]);
        const requested: any[] = [];
        for await (const e of s.service.log.read()) if (e.type === 'ActivationRequested') requested.push(e.data);
        assert.deepEqual(requested.map((d) => d.swapContracts), [{ swapContractAddress: params.swap_contract_address, fallbackSwapContract: null }]);
      } finally {
        await s.stop();
      }
    }
  });

  test('events record every state change and hold no secret', async () => {
    const s = await stack();
    try {
      const params = { ...enableEthParams(s, ['USDT-ERC20']), nodes: [{ url: `${devnet.url}/?apikey=node-secret-key` }] };
      await s.v2('enable_eth_with_tokens', { ...params, nodes: [{ url: `${await refusedUrl()}/?apikey=node-secret-key` }] });
      assert.equal((await s.v2('enable_eth_with_tokens', { ...params, nodes: [{ url: devnet.url }] })).status, 200);
      await s.legacy('disable_coin', { coin: 'ETH' });
      const types: string[] = [];
      for await (const e of s.service.log.read()) types.push(e.type);
      assert.deepEqual(types, [
        'SessionStarted',
        'ActivationRequested',
        'NodeAttempted', // the refused node, by origin only (issue 15)
        'ActivationFailed',
        'ActivationRequested',
        'NodeAttempted',
        'TokensRead',
        'CoinActivated',
        'CoinPassivated',
      ]);
      const raw = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
      for (const secret of [TEST_PASSPHRASE, TEST_PASSWORD, 'b8c774f071de08c7fd8f62b97f1a5726f6ce9f1bcf141b70b86689254ed6714e', 'node-secret-key']) {
        assert.equal(raw.includes(secret), false, `event log leaks ${secret}`);
      }
    } finally {
      await s.stop();
    }
  });
});
