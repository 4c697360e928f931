import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { refusedUrl, startLatencyProxy, startSilentNode, startTronNode, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { evmToTronBase58, evmToTronHex } from '../../infra/keys/tronAddress.ts';
import { enableEthWithTokensResult } from '../../spec/enableEthWithTokens.ts';
import {
  SWAP_CONTRACT,
  TEST_ADDRESS,
  TEST_PASSPHRASE,
  TEST_PASSWORD,
  enableEthParams,
  enableTrxParams,
  startStack,
  startTestDevnet,
  type Stack,
} from '../../devnet/testing/stack.ts';
import { cancelTask, enabledTickers, eventually, startTask, untilFinished, untilStatus } from '../../devnet/testing/tasks.ts';

/** The test wallet's TRON address: the same 20 bytes as its EVM address. */
const TRON_ADDRESS = evmToTronBase58(TEST_ADDRESS);
/** More SUN than a double holds exactly (> 2^53): the balance must stay exact end to end. */
const TRX_SUN = 1_234_500_000_000_000_001n;

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: TRX_SUN,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }, { symbol: 'NIL', decimals: 8, amount: 0n }],
  });
});
after(() => devnet.stop());

/** A fresh service with a devnet TRON node on the shared devnet. */
function stack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  const usdt = devnet.tokens[0]!.address;
  return startStack({
    devnet,
    tron: true,
    extraCoins: [
      // hex `41…` contract form, no decimals (read from the chain in the same round trip)
      { coin: 'USDT-HEX', protocol: { type: 'TRC20', protocol_data: { platform: 'TRX', contract_address: evmToTronHex(usdt) } } },
      { coin: 'NOCODE-TRC20', decimals: 6, protocol: { type: 'TRC20', protocol_data: { platform: 'TRX', contract_address: evmToTronBase58('0x000000000000000000000000000000000000dEaD') } } },
      { coin: 'EVMFORM-TRC20', decimals: 6, protocol: { type: 'TRC20', protocol_data: { platform: 'TRX', contract_address: usdt } } },
      { coin: 'BADSUM-TRC20', decimals: 6, protocol: { type: 'TRC20', protocol_data: { platform: 'TRX', contract_address: `${evmToTronBase58(usdt).slice(0, -1)}1` } } },
      { coin: 'USDT-TRX2', decimals: 6, protocol: { type: 'TRC20', protocol_data: { platform: 'TRX2', contract_address: evmToTronBase58(usdt) } } },
      { coin: 'TRX-NONET', protocol: { type: 'TRX', protocol_data: {} } },
    ],
    ...options,
  });
}

const trc20 = (s: Stack, tokens: readonly string[], extra: Record<string, unknown> = {}) => enableTrxParams(s, tokens, extra);

describe('TRX with TRC20 tokens through enable_eth_with_tokens (devnet TRON node)', () => {
  test('activates with only ticker, nodes and tokens: EVM result shape, TRON address, exact balances', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20', 'DAI-TRC20', 'NIL-TRC20', 'USDT-HEX']));
      assert.equal(status, 200, JSON.stringify(body));
      const result = body.result;
      assert.ok(enableEthWithTokensResult.check(result), JSON.stringify(enableEthWithTokensResult.firstProblem(result)));
      assert.equal(result.current_block, Number(BigInt((await devnet.request('eth_blockNumber', [])) as string)));
      assert.deepEqual(Object.keys(result.eth_addresses_infos), [TRON_ADDRESS]);
      assert.match(TRON_ADDRESS, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      const trx = result.eth_addresses_infos[TRON_ADDRESS]!;
      assert.deepEqual(trx.derivation_method, { type: 'Iguana' });
      assert.deepEqual(trx.balances, { spendable: '1234500000000.000001', unspendable: '0' });
      assert.deepEqual(result.erc20_addresses_infos[TRON_ADDRESS], {
        derivation_method: { type: 'Iguana' },
        pubkey: trx.pubkey,
        balances: {
          'USDT-TRC20': { spendable: '1234.567891', unspendable: '0' },
          'DAI-TRC20': { spendable: '5.000000000000000001', unspendable: '0' },
          'NIL-TRC20': { spendable: '0', unspendable: '0' },
          'USDT-HEX': { spendable: '1234.567891', unspendable: '0' },
        },
      });
      assert.deepEqual(result.nfts_infos, {});
      // the same key as ETH: same pubkey, EVM address = the TRON address's 20 bytes
      const eth = await s.v2('enable_eth_with_tokens', enableEthParams(s, []));
      assert.equal(eth.body.result.eth_addresses_infos[TEST_ADDRESS].pubkey, trx.pubkey);
      assert.deepEqual(await enabledTickers(s), ['DAI-TRC20', 'ETH', 'NIL-TRC20', 'TRX', 'USDT-HEX', 'USDT-TRC20']);
      const legacy = await s.legacy('get_enabled_coins');
      assert.equal(legacy.body.result.find((c: any) => c.ticker === 'TRX').address, TRON_ADDRESS);
      const balance = await s.legacy('my_balance', { coin: 'TRX' });
      assert.deepEqual(balance.body, { coin: 'TRX', balance: '1234500000000.000001', unspendable_balance: '0', address: TRON_ADDRESS });
      const token = await s.legacy('my_balance', { coin: 'USDT-TRC20' });
      assert.equal(token.body.balance, '1234.567891');
    } finally {
      await s.stop();
    }
  });

  test('calls go out concurrently: block, account and one aggregate3 for every token call, nothing else', async () => {
    const s = await stack();
    try {
      const { status } = await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20', 'DAI-TRC20', 'USDT-HEX']));
      assert.equal(status, 200);
      assert.deepEqual([...s.tron!.hits].sort(), [
        'POST /wallet/getaccount',
        'POST /wallet/getnowblock',
        'POST /wallet/triggerconstantcontract', // the devnet's multicall: 3 balanceOf + decimals() of USDT-HEX
      ]);
    } finally {
      await s.stop();
    }
  });

  test('with 40 ms per round trip, all the calls are in flight at once', async () => {
    const s = await stack();
    const proxy = await startLatencyProxy({ target: s.tron!.url, forwardPath: true, latencyMs: 40 });
    try {
      const params = { ...trc20(s, ['USDT-TRC20', 'DAI-TRC20', 'NIL-TRC20']), nodes: [{ url: proxy.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(proxy.stats().httpRequests, 3);
      assert.equal(proxy.stats().maxInFlight, 3, 'getnowblock, getaccount and the multicall of 3 balanceOf did not wait for each other');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('get_balances false: tickers instead of balances, and only the block is read', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20', 'DAI-TRC20'], { get_balances: false }));
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(Object.keys(body.result.eth_addresses_infos[TRON_ADDRESS]).sort(), ['derivation_method', 'pubkey']);
      assert.deepEqual(body.result.erc20_addresses_infos[TRON_ADDRESS].tickers, ['USDT-TRC20', 'DAI-TRC20']);
      assert.deepEqual(s.tron!.hits, ['POST /wallet/getnowblock']);
    } finally {
      await s.stop();
    }
  });

  test('swap contract fields would have no effect (TRON makes no swaps): refused naming the field; null ones are absent', async () => {
    const s = await stack();
    try {
      const v2 = { taker_swap_v2_contract: SWAP_CONTRACT, maker_swap_v2_contract: SWAP_CONTRACT, nft_maker_swap_v2_contract: SWAP_CONTRACT };
      for (const [field, value] of [
        ['swap_contract_address', SWAP_CONTRACT],
        ['fallback_swap_contract', 'not-even-an-address'],
        ['swap_v2_contracts', v2],
      ] as const) {
        const { status, body } = await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20'], { [field]: value }));
        assert.equal(status, 400, field);
        assert.equal(body.error_type, 'InvalidRequest');
        assert.equal(body.error, `params.${field}: TRON (TRX) is wallet-only and makes no swaps (spec 1.8); omit it`);
      }
      assert.deepEqual((await s.legacy('get_enabled_coins')).body.result, [], 'nothing registered');
      const params = trc20(s, ['USDT-TRC20'], { swap_contract_address: null, fallback_swap_contract: null });
      assert.equal((await s.v2('enable_eth_with_tokens', params)).status, 200);
      const status = (await s.v2('coin_status', { ticker: 'TRX' })).body.result;
      assert.equal(status.swap_contract_address, undefined);
    } finally {
      await s.stop();
    }
  });

  test('a never-activated account has 0 TRX', async () => {
    const s = await stack({ config: { passphrase: 'a wallet nobody ever funded' } });
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20']));
      assert.equal(status, 200, JSON.stringify(body));
      const [address] = Object.keys(body.result.eth_addresses_infos);
      assert.notEqual(address, TRON_ADDRESS);
      assert.deepEqual(body.result.eth_addresses_infos[address!].balances, { spendable: '0', unspendable: '0' });
      assert.deepEqual(body.result.erc20_addresses_infos[address!].balances, { 'USDT-TRC20': { spendable: '0', unspendable: '0' } });
    } finally {
      await s.stop();
    }
  });
});

describe('TRX failover', () => {
  test('a refused first node is skipped at once, and the working node leads afterwards', async () => {
    const s = await stack();
    try {
      const params = { ...trc20(s, ['USDT-TRC20']), nodes: [{ url: await refusedUrl() }, { url: s.tron!.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 200, JSON.stringify(body));
      const hits = s.tron!.hits.length;
      assert.equal((await s.legacy('my_balance', { coin: 'TRX' })).status, 200);
      assert.equal(s.tron!.hits.length, hits + 2, 'my_balance went straight to the node that answered');
    } finally {
      await s.stop();
    }
  });

  for (const [name, reply] of [
    ['busy (503)', true],
    ['rate limited (429)', { status: 429, body: { Error: 'rate limit exceeded' } }],
    ['HTTP 200 with {"Error"}', { status: 200, body: { Error: 'class org.tron.core.exception.TooBigTransactionException : too many requests' } }],
  ] as const) {
    test(`a ${name} first node counts as a node failure`, async () => {
      const busy = await startTronNode({ evm: devnet, busy: reply });
      const s = await stack();
      try {
        const params = { ...trc20(s, ['USDT-TRC20']), nodes: [{ url: busy.url }, { url: s.tron!.url }] };
        const { status, body } = await s.v2('enable_eth_with_tokens', params);
        assert.equal(status, 200, JSON.stringify(body));
        assert.ok(busy.hits.length > 0, 'the busy node was tried first');
        assert.deepEqual(Object.keys(body.result.erc20_addresses_infos[TRON_ADDRESS].balances), ['USDT-TRC20']);
      } finally {
        await s.stop();
        await busy.stop();
      }
    });
  }

  test('a silent first node is abandoned after the per-node timeout (injected clock)', async () => {
    const clock = new ManualClock();
    const silent = await startSilentNode();
    const s = await stack({ clock, tronOptions: { nodeTimeoutMs: 10_000 } });
    try {
      const params = { ...trc20(s, ['USDT-TRC20']), nodes: [{ url: silent.url }, { url: s.tron!.url }] };
      const pending = s.v2('enable_eth_with_tokens', params);
      while (silent.connections() === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(9_999);
      assert.equal(s.tron!.hits.length, 0, 'still waiting on the silent node');
      clock.advance(1);
      const { status, body } = await pending;
      assert.equal(status, 200, JSON.stringify(body));
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('all nodes down: Transport (502) naming origins only, nothing registered, retry works', async () => {
    const busy = await startTronNode({ evm: devnet, busy: true });
    const s = await stack();
    try {
      const refused = await refusedUrl();
      const params = { ...trc20(s, ['USDT-TRC20']), nodes: [{ url: `${refused}/secret-api-key/` }, { url: busy.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 502, JSON.stringify(body));
      assert.equal(body.error_type, 'Transport');
      assert.match(body.error, /all 2 node\(s\) failed/);
      assert.match(body.error, /HTTP 503/);
      assert.doesNotMatch(JSON.stringify(body), /secret-api-key/);
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal((await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20']))).status, 200, 'can activate after a failure');
    } finally {
      await s.stop();
      await busy.stop();
    }
  });

  test('a TRC20 with no contract aborts the whole activation without trying other nodes', async () => {
    const second = await startTronNode({ evm: devnet });
    const s = await stack();
    try {
      const params = { ...trc20(s, ['USDT-TRC20', 'NOCODE-TRC20']), nodes: [{ url: s.tron!.url }, { url: second.url }] };
      const { status, body } = await s.v2('enable_eth_with_tokens', params);
      assert.equal(status, 502);
      assert.equal(body.error_type, 'Transport');
      assert.match(body.error, /NOCODE-TRC20.*No contract/);
      assert.equal(second.hits.length, 0, 'a contract error is not a node failure');
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
      await second.stop();
    }
  });
});

describe('TRX request checks (nothing registered, no node contacted)', () => {
  let s: Stack;
  before(async () => {
    s = await stack();
  });
  after(() => s.stop());

  const cases: [string, (s: Stack) => Record<string, unknown>, number, string, RegExp | unknown][] = [
    ['an ERC20 under TRX', (s) => trc20(s, ['USDT-TRC20', 'USDT-ERC20']), 400, 'UnexpectedTokenProtocol', /for USDT-ERC20: expected TRC20 under TRX/],
    ['a TRC20 of another platform', (s) => trc20(s, ['USDT-TRX2']), 400, 'PlatformCoinMismatch', undefined],
    ['a TRC20 contract in EVM form', (s) => trc20(s, ['EVMFORM-TRC20']), 400, 'UnexpectedTokenProtocol', /not a TRON address/],
    ['a TRC20 contract with a bad checksum', (s) => trc20(s, ['BADSUM-TRC20']), 400, 'UnexpectedTokenProtocol', /not a TRON address/],
    ['an unknown token', (s) => trc20(s, ['NOPE-TRC20']), 400, 'TokenConfigIsNotFound', 'NOPE-TRC20'],
    ['no nodes', (s) => ({ ...trc20(s, []), nodes: [] }), 400, 'AtLeastOneNodeRequired', 'Enable request for TRX coin must have at least 1 node'],
    ['a ws:// node', (s) => ({ ...trc20(s, []), nodes: [{ url: s.tron!.url }, { url: 'ws://127.0.0.1:9/path-key' }] }), 400, 'InvalidRequest', /^nodes\[1\]\.url ws:\/\/127\.0\.0\.1:9: TRON nodes are HTTP\(S\)/],
    ['a wss:// node', (s) => ({ ...trc20(s, []), nodes: [{ url: 'wss://tron.example' }] }), 400, 'InvalidRequest', /nodes\[0\]\.url wss:\/\/tron\.example/],
    ['a node with ws_url', (s) => ({ ...trc20(s, []), nodes: [{ url: s.tron!.url, ws_url: 'wss://tron.example/ws' }] }), 400, 'InvalidRequest', /nodes\[0\]\.ws_url wss:\/\/tron\.example: .*send url only/],
    ['nft_req', (s) => trc20(s, [], { nft_req: { type: 'NftIndexer', info: { url: 'https://nft.example' } } }), 400, 'InvalidRequest', /nft_req: TRON \(TRX\) has no NFT support/],
    ['a gas station', (s) => trc20(s, [], { gas_station_url: 'https://station.example/api?key=SECRET' }), 400, 'InvalidRequest', 'params.gas_station_url: TRON (TRX) pays fees in bandwidth and energy, which no gas station prices; omit it'],
    ['a TRX entry without a network', (s) => trc20(s, [], { ticker: 'TRX-NONET' }), 500, 'CoinProtocolParseError', /network must be one of Mainnet, Shasta, Nile/],
  ];
  for (const [name, params, httpStatus, errorType, data] of cases) {
    test(name, async () => {
      const { status, body } = await s.v2('enable_eth_with_tokens', params(s));
      assert.equal(status, httpStatus, JSON.stringify(body));
      assert.equal(body.error_type, errorType);
      if (data instanceof RegExp) assert.match(String(body.error), data);
      else if (data !== undefined) assert.deepEqual(body.error_data, data);
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal(s.tron!.hits.length, 0);
    });
  }

  test('a TRC20 under an EVM platform is UnexpectedTokenProtocol', async () => {
    const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-TRC20']));
    assert.equal(status, 400);
    assert.equal(body.error_type, 'UnexpectedTokenProtocol');
    assert.equal(body.error_data.ticker, 'USDT-TRC20');
    assert.match(body.error, /expected ERC20 under ETH/);
  });

  test('the Hardware policy is refused for TRX in planning, before any device is involved', async () => {
    const taskId = await startTask(s, trc20(s, [], { priv_key_policy: { type: 'Hardware' } }));
    const { result, seen } = await untilFinished(s, taskId);
    assert.equal(result.status, 'Error', JSON.stringify(result));
    assert.equal(result.details.error_type, 'PrivKeyNotAllowed');
    assert.match(result.details.error, /Hardware policy is not supported for TRX/);
    assert.ok(!seen.some((l) => l.includes('WaitingForTrezor') || l.includes('UserActionRequired')), seen.join(' → '));
  });

  test('legacy enable refuses TRX and TRC20 (v2 methods only)', async () => {
    for (const coin of ['TRX', 'USDT-TRC20']) {
      const { status, body } = await s.legacy('enable', { coin, mm2: 1 });
      assert.equal(status, 500);
      const type = coin === 'TRX' ? 'TRX' : 'TRC20';
      assert.deepEqual(body, {
        error: `${type} protocol is not supported by lp_coininit: TRON coins are activated with enable_eth_with_tokens or task::enable_eth::init`,
      });
    }
    assert.deepEqual(await enabledTickers(s), []);
  });
});

describe('TRX through task::enable_eth', () => {
  test('a task reaches Ok with the same result shape, and the events say family tron', async () => {
    const s = await stack();
    try {
      const taskId = await startTask(s, trc20(s, ['USDT-TRC20']));
      const { result } = await untilFinished(s, taskId);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.ok(enableEthWithTokensResult.check(result.details), JSON.stringify(result.details));
      assert.deepEqual(result.details.eth_addresses_infos[TRON_ADDRESS].balances, { spendable: '1234500000000.000001', unspendable: '0' });
      assert.deepEqual(result.details.erc20_addresses_infos[TRON_ADDRESS].balances, { 'USDT-TRC20': { spendable: '1234.567891', unspendable: '0' } });
      const events = [];
      for await (const e of s.service.log.read()) events.push(e);
      const requested = events.find((e) => e.type === 'ActivationRequested');
      const activated = events.find((e) => e.type === 'CoinActivated');
      assert.equal(requested?.type === 'ActivationRequested' && requested.data.family, 'tron');
      assert.equal(activated?.type === 'CoinActivated' && activated.data.address, TRON_ADDRESS);
      const raw = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
      assert.ok(!raw.includes(s.tron!.url), 'no node URL in the log');
      assert.ok(!raw.includes(TEST_PASSPHRASE) && !raw.includes(TEST_PASSWORD), 'no secret in the log');
    } finally {
      await s.stop();
    }
  });

  test('cancel while the balances are requested: every TRON request is aborted, nothing registered', async () => {
    const silent = await startSilentNode();
    const s = await stack();
    try {
      const id = await startTask(s, { ...trc20(s, ['USDT-TRC20', 'DAI-TRC20']), nodes: [{ url: silent.url }] });
      await untilStatus(s, id, 'InProgress', 'RequestingWalletBalance');
      // getnowblock, getaccount and the multicall of two balanceOf, each on its own connection
      await eventually(() => silent.sockets().filter((x) => x.bytes > 0).length === 3, 'the three requests to reach the silent node');
      assert.equal((await cancelTask(s, id)).status, 200);
      await eventually(() => silent.sockets().every((x) => !x.open), 'every aborted request to close its socket');
      assert.equal(silent.connections(), 3, 'no request after the cancel');
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal((await s.v2('enable_eth_with_tokens', trc20(s, ['USDT-TRC20']))).status, 200, 'TRX is free again');
    } finally {
      await s.stop();
      await silent.stop();
    }
  });

  test('get_balances false in a task', async () => {
    const s = await stack();
    try {
      const taskId = await startTask(s, trc20(s, ['USDT-TRC20'], { get_balances: false }));
      const { result } = await untilFinished(s, taskId);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.deepEqual(result.details.erc20_addresses_infos[TRON_ADDRESS].tickers, ['USDT-TRC20']);
      assert.deepEqual(s.tron!.hits, ['POST /wallet/getnowblock']);
    } finally {
      await s.stop();
    }
  });
});
