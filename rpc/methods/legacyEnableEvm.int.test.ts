import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, startGasStation, startLatencyProxy, GasStationMode, type EvmDevnet } from '../../devnet/index.ts';
import type { EvmConnection } from '../../infra/evm/evmNodes.ts';
import { legacyActivationResponse } from '../../spec/legacyElectrum.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { FakeHardwareWallet } from '../../devnet/hardware/fakeHardwareWallet.ts';
import { cancelTask, startTask, untilStatus } from '../../devnet/testing/tasks.ts';

const NATIVE_WEI = 1_234_500_000_000_000_001n;
const GWEI = 10n ** 9n;
const ZERO = '0x0000000000000000000000000000000000000000';

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: NATIVE_WEI,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }],
  });
});
after(() => devnet.stop());

/** A fresh service (nothing active) on the shared devnet, with the entries the error cases need. */
function stack(): Promise<Stack> {
  const erc20 = (coin: string, platform: string, contract: string) => ({ coin, mm2: 1, protocol: { type: 'ERC20', protocol_data: { platform, contract_address: contract } } });
  const usdt = devnet.tokens[0]!.address;
  return startStack({
    devnet,
    extraCoins: [
      // no `decimals`: read from the chain in the same batch as the balance
      erc20('DAI-NODEC', 'ETH', devnet.tokens[1]!.address),
      erc20('ORPHAN-ERC20', 'NOPE', usdt),
      { coin: 'KMD', mm2: 1, pubtype: 60, protocol: { type: 'UTXO' } },
      erc20('KMDTOKEN-ERC20', 'KMD', usdt),
      { coin: 'NOCHAIN', mm2: 1, protocol: { type: 'ETH' } },
      erc20('NOCHAIN-ERC20', 'NOCHAIN', usdt),
      erc20('LOWER-ERC20', 'ETH', usdt.toLowerCase()),
      { coin: 'ETHCONF', mm2: 1, required_confirmations: 7, protocol: { type: 'ETH', protocol_data: { chain_id: devnet.chainId } } },
    ],
  });
}

/** A valid legacy `enable` of `coin` against the devnet, with `fields` on top. */
const enableBody = (coin: string, fields: Record<string, unknown> = {}) => ({ coin, urls: [devnet.url], swap_contract_address: SWAP_CONTRACT, ...fields });

async function enabled(s: Stack): Promise<{ ticker: string; address: string }[]> {
  return (await s.legacy('get_enabled_coins')).body.result;
}

/** The legacy success body for the devnet wallet, keys in the reference's order. */
function successBody(coin: string, balance: string, requiredConfirmations = 3) {
  return {
    result: 'success',
    address: TEST_ADDRESS,
    balance,
    unspendable_balance: '0',
    coin,
    required_confirmations: requiredConfirmations,
    requires_notarization: false,
    locked_by_swaps: '0',
  };
}

function assertSuccess(answer: { status: number; body: any }, expected: Record<string, unknown>): void {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(legacyActivationResponse.check(answer.body), JSON.stringify(legacyActivationResponse.firstProblem(answer.body)));
  assert.deepEqual(Object.entries(answer.body), Object.entries(expected)); // key order too
}

function assertLegacyError(answer: { status: number; body: any }): string {
  assert.equal(answer.status, 500, JSON.stringify(answer.body));
  assert.deepEqual(Object.keys(answer.body), ['error']);
  return answer.body.error;
}

/** The wallet's connection as the family keeps it (the gas price is not in any response). */
function connectionOf(s: Stack, ticker: string): EvmConnection {
  return s.service.registry.view(ticker).coin!.connection as EvmConnection;
}

describe('legacy enable: ETH and ERC20 against the devnet', () => {
  test('ETH: exactly the legacy body with the devnet balance; my_balance and get_enabled_coins after', async () => {
    const s = await stack();
    try {
      assertSuccess(await s.legacy('enable', enableBody('ETH')), successBody('ETH', '1.234500000000000001'));
      assert.deepEqual(await enabled(s), [{ ticker: 'ETH', address: TEST_ADDRESS }]);
      assert.deepEqual((await s.legacy('my_balance', { coin: 'ETH' })).body, {
        coin: 'ETH',
        balance: '1.234500000000000001',
        unspendable_balance: '0',
        address: TEST_ADDRESS,
      });
      assert.equal(connectionOf(s, 'ETH').gasPrice?.wei, undefined);
      // a second enable of an active coin
      assert.equal(assertLegacyError(await s.legacy('enable', enableBody('ETH'))), 'Coin ETH already initialized');
      assert.deepEqual(await enabled(s), [{ ticker: 'ETH', address: TEST_ADDRESS }]);
    } finally {
      await s.stop();
    }
  });

  test('a coin held by a running task (waiting for its device): the legacy sentence, and enable works once the task is cancelled', async () => {
    const s = await startStack({ devnet, hardware: async () => new FakeHardwareWallet() });
    try {
      const id = await startTask(s, enableEthParams(s, [], { priv_key_policy: 'Hardware' }));
      await untilStatus(s, id, 'InProgress', 'WaitingForHardwareToConnect');
      assert.equal(s.service.registry.view('ETH').state, 'inactive', 'held, not activating');
      assert.equal(assertLegacyError(await s.legacy('enable', enableBody('ETH'))), 'Coin ETH already initialized');
      assert.equal((await cancelTask(s, id)).body.result, 'success');
      assertSuccess(await s.legacy('enable', enableBody('ETH')), successBody('ETH', '1.234500000000000001'));
    } finally {
      await s.stop();
    }
  });

  test('ERC20 with decimals in the coins file: its token balance', async () => {
    const s = await stack();
    try {
      assertSuccess(await s.legacy('enable', enableBody('USDT-ERC20')), successBody('USDT-ERC20', '1234.567891'));
      assert.deepEqual((await s.legacy('my_balance', { coin: 'USDT-ERC20' })).body.balance, '1234.567891');
      assert.deepEqual(await enabled(s), [{ ticker: 'USDT-ERC20', address: TEST_ADDRESS }]);
    } finally {
      await s.stop();
    }
  });

  test('ERC20 without decimals: read from the contract in the one batched read; my_balance does not re-read them', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await stack();
    try {
      assertSuccess(await s.legacy('enable', enableBody('DAI-NODEC', { urls: [proxy.url] })), successBody('DAI-NODEC', '5.000000000000000001'));
      assert.equal(proxy.stats().httpRequests, 1);
      // balanceOf + decimals in one deployless call (evmMulticall.int.test.ts shows the other paths)
      assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 });
      proxy.reset();
      const balance = await s.legacy('my_balance', { coin: 'DAI-NODEC' });
      assert.deepEqual(balance.body, { coin: 'DAI-NODEC', balance: '5.000000000000000001', unspendable_balance: '0', address: TEST_ADDRESS });
      assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 }); // aggregate3: the first read found the contract
      assert.equal(proxy.stats().callsWithoutTo, 0);
      assert.deepEqual(await enabled(s), [{ ticker: 'DAI-NODEC', address: TEST_ADDRESS }]);
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('required_confirmations: from the request, else the coins file; requires_notarization is always false', async () => {
    const s = await stack();
    try {
      const fromRequest = await s.legacy('enable', enableBody('ETH', { required_confirmations: 5, requires_notarization: true }));
      assertSuccess(fromRequest, successBody('ETH', '1.234500000000000001', 5));
      assertSuccess(await s.legacy('enable', enableBody('ETHCONF')), successBody('ETHCONF', '1.234500000000000001', 7));
      assertSuccess(await s.legacy('enable', enableBody('USDT-ERC20', { required_confirmations: 0 })), successBody('USDT-ERC20', '1234.567891', 0));
    } finally {
      await s.stop();
    }
  });

  test('a refused first url fails over to the next; my_balance works after', async () => {
    const s = await stack();
    try {
      assertSuccess(await s.legacy('enable', enableBody('ETH', { urls: [await refusedUrl(), devnet.url] })), successBody('ETH', '1.234500000000000001'));
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).body.balance, '1.234500000000000001');
    } finally {
      await s.stop();
    }
  });

  test('all urls down: the 7.2 message naming node origins only, nothing registered', async () => {
    const s = await stack();
    try {
      const [a, b] = [await refusedUrl(), await refusedUrl()];
      const answer = await s.legacy('enable', enableBody('ETH', { urls: [`${a}/v3/SECRET-KEY?apikey=SECRET2`, `${b}/rpc`] }));
      const message = assertLegacyError(answer);
      assert.match(message, new RegExp(`^All the current rpc nodes for ETH are unavailable: ${a}: .*ECONNREFUSED.*; ${b}: .*ECONNREFUSED`));
      for (const secret of ['SECRET', '/v3', 'apikey', '/rpc']) assert.ok(!message.includes(secret), message);
      assert.deepEqual(await enabled(s), []);
    } finally {
      await s.stop();
    }
  });
});

describe('legacy enable: gas station', () => {
  test('a station that answers: success, queried once per activation, price kept in wei', async () => {
    const station = await startGasStation({ body: { fast: 1000, average: 500 } });
    const s = await stack();
    try {
      assertSuccess(await s.legacy('enable', enableBody('ETH', { gas_station_url: station.url })), successBody('ETH', '1.234500000000000001'));
      assert.equal(station.hits(), 1);
      // MeanAverageFast, decimals 8 (defaults): (500 + 1000) / 2 × 10^8 wei = 75 gwei
      assert.equal(connectionOf(s, 'ETH').gasPrice?.wei, 75n * GWEI);
      const polygonStyle = enableBody('USDT-ERC20', { gas_station_url: station.url, gas_station_decimals: 9, gas_station_policy: { policy: 'Average' } });
      assertSuccess(await s.legacy('enable', polygonStyle), successBody('USDT-ERC20', '1234.567891'));
      assert.equal(station.hits(), 2);
      assert.equal(connectionOf(s, 'USDT-ERC20').gasPrice?.wei, 500n * GWEI);
    } finally {
      await s.stop();
      await station.stop();
    }
  });

  test('a failing station: the 7.2 message naming its origin only, nothing registered', async () => {
    const station = await startGasStation();
    const origin = new URL(station.url).origin;
    const s = await stack();
    try {
      const cases: [string, () => void | Promise<string>, string][] = [
        ['HTTP 500', () => station.answer(GasStationMode.Error), 'HTTP 500 Internal Server Error'],
        ['not JSON', () => station.answer(GasStationMode.Garbage), 'the answer is not JSON'],
        ['fields missing', () => station.answer(GasStationMode.Json, { fast: 10, safeLow: 5 }), 'the answer has no "average" (or "standard")'],
      ];
      for (const [name, arrange, reason] of cases) {
        arrange();
        const message = assertLegacyError(await s.legacy('enable', enableBody('ETH', { gas_station_url: station.url })));
        assert.equal(message, `Failed to get the gas price from the gas station ${origin}: ${reason}`, name);
        assert.deepEqual(await enabled(s), [], name);
      }
      const refused = await refusedUrl();
      const message = assertLegacyError(await s.legacy('enable', enableBody('ETH', { gas_station_url: `${refused}/gas?key=SECRET` })));
      assert.equal(message, `Failed to get the gas price from the gas station ${refused}: connection failed (ECONNREFUSED)`);
      assert.deepEqual(await enabled(s), []);
      // the failures left nothing behind: the coin activates once the station answers
      station.answer(GasStationMode.Json, { fast: 20, average: 10 });
      assertSuccess(await s.legacy('enable', enableBody('ETH', { gas_station_url: station.url })), successBody('ETH', '1.234500000000000001'));
    } finally {
      await s.stop();
      await station.stop();
    }
  });
});

describe('legacy enable: EVM request checks, in order (spec 4.7, 7.2)', () => {
  let s: Stack;
  before(async () => {
    s = await stack();
  });
  after(() => s.stop());

  const noUrls = (coin: string) => {
    const { urls: _urls, ...rest } = enableBody(coin);
    return rest;
  };
  const cases: [string, () => Record<string, unknown>, string | RegExp][] = [
    ['urls missing', () => noUrls('ETH'), 'Enable request for ETH coin must have at least 1 node URL'],
    ['urls empty (checked before the swap contract)', () => enableBody('USDT-ERC20', { urls: [], swap_contract_address: ZERO }), 'Enable request for USDT-ERC20 coin must have at least 1 node URL'],
    ['a url of another scheme', () => enableBody('ETH', { urls: ['ftp://node.example/SECRET'] }), 'urls[0] ftp://node.example: invalid node address, only http(s):// and ws(s):// nodes are supported'],
    ['a url of another scheme after a good one', () => enableBody('ETH', { urls: [devnet.url, 'tcp://node.example/SECRET'] }), 'urls[1] tcp://node.example: invalid node address, only http(s):// and ws(s):// nodes are supported'],
    ['swap_contract_address missing', () => ({ coin: 'ETH', urls: [devnet.url] }), 'swap_contract_address is required to enable ETH'],
    ['swap_contract_address malformed', () => enableBody('ETH', { swap_contract_address: '0x1234' }), 'swap_contract_address is not a valid EVM address'],
    ['swap_contract_address zero', () => enableBody('ETH', { swap_contract_address: ZERO }), "swap_contract_address can't be zero address"],
    ['fallback_swap_contract malformed', () => enableBody('ETH', { fallback_swap_contract: 'nope' }), 'fallback_swap_contract is not a valid EVM address'],
    ['fallback_swap_contract zero', () => enableBody('ETH', { fallback_swap_contract: ZERO }), "fallback_swap_contract can't be zero address"],
    ['an ETH entry without chain id', () => enableBody('NOCHAIN'), "Failed to activate 'NOCHAIN': chain_id is not set in the coins config"],
    ['an ERC20 whose platform is not defined', () => enableBody('ORPHAN-ERC20'), "Failed to activate ERC20 token 'ORPHAN-ERC20': the platform 'NOPE' is not defined in the coins config."],
    ['an ERC20 whose platform is not ETH', () => enableBody('KMDTOKEN-ERC20'), "Failed to activate ERC20 token 'KMDTOKEN-ERC20': the platform protocol 'UTXO' must be ETH"],
    ['an ERC20 whose platform has no chain id', () => enableBody('NOCHAIN-ERC20'), "Failed to activate ERC20 token 'NOCHAIN-ERC20': the platform 'NOCHAIN' has no chain_id in the coins config"],
    ['an ERC20 contract not EIP-55 checksummed', () => enableBody('LOWER-ERC20'), "Failed to activate ERC20 token 'LOWER-ERC20': contract_address is not an EIP-55 checksummed address"],
    ['a gas station that is not http(s)', () => enableBody('ETH', { gas_station_url: 'wss://station.example/SECRET' }), 'gas_station_url wss://station.example: expected an http:// or https:// URL'],
    ['another address than the Iguana key\'s one', () => enableBody('ETH', { path_to_address: { account_id: 0, chain: 'Internal', address_id: 0 } }), "path_to_address asks for account 0, Internal, address 0 of ETH, but an Iguana key (enable_hd false) has one address per coin: leave path_to_address out (or give account 0, External, address 0), or set enable_hd to choose an HD address"],
    ['address_format (an EVM address has one format)', () => enableBody('ETH', { address_format: { format: 'standard' } }), 'address_format: ETH is an EVM coin, whose address has one format; address_format applies to UTXO coins'],
    ['utxo_merge_params (an EVM coin has no UTXOs to merge either)', () => enableBody('ETH', { utxo_merge_params: { merge_at: 50 } }), /^utxo_merge_params is not supported: merging UTXOs means signing and broadcasting transactions/],
  ];
  for (const [name, body, message] of cases) {
    test(name, async () => {
      const error = assertLegacyError(await s.legacy('enable', body()));
      if (message instanceof RegExp) assert.match(error, message);
      else assert.equal(error, message);
      assert.deepEqual(await enabled(s), []);
    });
  }

  test('a null fallback swap contract is the same as none, and the default path_to_address passes with an Iguana key', async () => {
    const answer = await s.legacy('enable', enableBody('ETH', { fallback_swap_contract: null, path_to_address: { account_id: 0, chain: 'External', address_id: 0 } }));
    assertSuccess(answer, successBody('ETH', '1.234500000000000001'));
    const requested: any[] = [];
    for await (const e of s.service.log.read()) if (e.type === 'ActivationRequested') requested.push(e.data);
    assert.deepEqual(requested.at(-1).swapContracts, { swapContractAddress: SWAP_CONTRACT, fallbackSwapContract: null });
    assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
  });
});
