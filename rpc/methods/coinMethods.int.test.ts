import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface, getBigInt, toQuantity } from 'ethers';
import { startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { TEST_ADDRESS, TEST_PASSWORD, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';

/** Legacy `get_enabled_coins`, `disable_coin` and `my_balance` against a real devnet (docs/compatibility.md §10). */

const erc20 = new Interface(['function mint(address to, uint256 amount)', 'function balanceOf(address) view returns (uint256)']);

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({
    nativeWei: 1_234_500_000_000_000_001n,
    tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_234_567_891n }, { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n }, { symbol: 'LINK', decimals: 8, amount: 0n }],
  });
});
after(() => devnet.stop());

/** A fresh service (new dbdir, nothing enabled) on the shared devnet. */
const stack = () => startStack({ devnet });

function tokenAddress(symbol: string): string {
  const token = devnet.tokens.find((t) => t.symbol === symbol);
  assert.ok(token, symbol);
  return token.address;
}

/** Mints `amount` base units of `symbol` to the test wallet (the deployer owns the tokens). */
async function mint(symbol: string, amount: bigint): Promise<void> {
  const data = erc20.encodeFunctionData('mint', [TEST_ADDRESS, amount]);
  await devnet.request('eth_sendTransaction', [{ from: devnet.deployer, to: tokenAddress(symbol), data }]);
}

/** The chain's own view of the test wallet's token balance (independent of the service). */
async function chainTokenBalance(symbol: string): Promise<bigint> {
  const raw = await devnet.request('eth_call', [{ to: tokenAddress(symbol), data: erc20.encodeFunctionData('balanceOf', [TEST_ADDRESS]) }, 'latest']);
  return getBigInt(erc20.decodeFunctionResult('balanceOf', raw as string)[0] as bigint);
}

const setEthBalance = (wei: bigint) => devnet.request('hardhat_setBalance', [TEST_ADDRESS, toQuantity(wei)]);

async function enable(s: Stack, tokens: string[]): Promise<any> {
  const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, tokens));
  assert.equal(status, 200, JSON.stringify(body));
  return body.result;
}

async function enabledTickers(s: Stack): Promise<string[]> {
  const { status, body } = await s.v2('get_enabled_coins');
  assert.equal(status, 200);
  return body.result.coins.map((c: { ticker: string }) => c.ticker).sort();
}

async function myBalance(s: Stack, coin: string): Promise<{ status: number; body: any }> {
  return s.legacy('my_balance', { coin });
}

/** Asserts a legacy `No such coin` answer: HTTP 500, `{"error":"No such coin: <T>"}`. */
async function assertNoSuchCoin(s: Stack, coin: string): Promise<void> {
  const { status, body } = await myBalance(s, coin);
  assert.equal(status, 500, `my_balance ${coin}: ${JSON.stringify(body)}`);
  assert.deepEqual(body, { error: `No such coin: ${coin}` });
}

async function assertBalance(s: Stack, coin: string, balance: string): Promise<void> {
  const { status, body } = await myBalance(s, coin);
  assert.equal(status, 200, `my_balance ${coin}: ${JSON.stringify(body)}`);
  assert.deepEqual(body, { coin, balance, unspendable_balance: '0', address: TEST_ADDRESS });
}

/** The body as sent (key order included). */
async function rawPost(s: Stack, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(s.service.url, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('coin methods on a real devnet', () => {
  test('get_enabled_coins in legacy and v2 form, before and after an activation', async () => {
    const s = await stack();
    try {
      assert.deepEqual(await s.legacy('get_enabled_coins'), { status: 200, body: { result: [] } });
      assert.deepEqual(await s.v2('get_enabled_coins'), { status: 200, body: { mmrpc: '2.0', result: { coins: [] }, id: null } });

      await enable(s, ['USDT-ERC20', 'DAI-ERC20']);
      const legacy = await s.legacy('get_enabled_coins');
      assert.equal(legacy.status, 200);
      assert.deepEqual(Object.keys(legacy.body), ['result']);
      assert.equal('mmrpc' in legacy.body, false);
      const byTicker = (a: { ticker: string }, b: { ticker: string }) => a.ticker.localeCompare(b.ticker);
      assert.deepEqual([...legacy.body.result].sort(byTicker), [
        { ticker: 'DAI-ERC20', address: TEST_ADDRESS },
        { ticker: 'ETH', address: TEST_ADDRESS },
        { ticker: 'USDT-ERC20', address: TEST_ADDRESS },
      ]);

      const v2 = await s.v2('get_enabled_coins');
      assert.equal(v2.status, 200);
      assert.deepEqual(Object.keys(v2.body), ['mmrpc', 'result', 'id']);
      assert.equal(v2.body.mmrpc, '2.0');
      assert.equal(v2.body.id, null);
      assert.deepEqual(Object.keys(v2.body.result), ['coins']);
      assert.deepEqual([...v2.body.result.coins].sort(byTicker), [{ ticker: 'DAI-ERC20' }, { ticker: 'ETH' }, { ticker: 'USDT-ERC20' }]);

      // a v2 id is echoed
      const withId = await s.post({ mmrpc: '2.0', userpass: TEST_PASSWORD, method: 'get_enabled_coins', params: {}, id: 17 });
      assert.equal(withId.body.id, 17);
    } finally {
      await s.stop();
    }
  });

  test('my_balance gives exact live balances of the platform and its tokens', async () => {
    const s = await stack();
    try {
      await setEthBalance(1_234_500_000_000_000_001n);
      const usdtBefore = await chainTokenBalance('USDT');
      const daiBefore = await chainTokenBalance('DAI');
      const result = await enable(s, ['USDT-ERC20', 'DAI-ERC20', 'LINK-ERC20']);
      assert.deepEqual(result.eth_addresses_infos[TEST_ADDRESS].balances, { spendable: '1.234500000000000001', unspendable: '0' });

      // the chain changes after activation: my_balance must read it, not the activation's numbers
      await setEthBalance(3n * 10n ** 18n + 7n);
      await mint('USDT', 1n);
      await mint('LINK', 12_345_678_900n);
      await assertBalance(s, 'ETH', '3.000000000000000007');
      assert.equal(await chainTokenBalance('USDT'), usdtBefore + 1n);
      await assertBalance(s, 'USDT-ERC20', formatUnits(usdtBefore + 1n, 6));
      await assertBalance(s, 'DAI-ERC20', formatUnits(daiBefore, 18));
      await assertBalance(s, 'LINK-ERC20', formatUnits(await chainTokenBalance('LINK'), 8));

      await setEthBalance(0n);
      await assertBalance(s, 'ETH', '0');
    } finally {
      await setEthBalance(1_234_500_000_000_000_001n);
      await s.stop();
    }
  });

  test('my_balance of a coin that is not enabled is 500 No such coin', async () => {
    const s = await stack();
    try {
      await assertNoSuchCoin(s, 'ETH');
      await assertNoSuchCoin(s, 'NOPE');
      await enable(s, ['USDT-ERC20']);
      await assertNoSuchCoin(s, 'DAI-ERC20'); // configured, platform active, but not enabled
      await assertNoSuchCoin(s, 'NOPE');
      await assertBalance(s, 'USDT-ERC20', formatUnits(await chainTokenBalance('USDT'), 6));
    } finally {
      await s.stop();
    }
  });

  test('disable_coin of a platform with tokens passivizes it; tokens keep working; enable_eth_with_tokens re-activates', async () => {
    const s = await stack();
    try {
      await enable(s, ['USDT-ERC20', 'DAI-ERC20']);
      const disabled = await s.legacy('disable_coin', { coin: 'ETH' });
      assert.deepEqual(disabled, { status: 200, body: { result: { coin: 'ETH', cancelled_orders: [], passivized: true } } });

      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH', 'USDT-ERC20'], 'a passive platform is still listed');
      const legacyList = (await s.legacy('get_enabled_coins')).body.result;
      assert.ok(legacyList.some((c: any) => c.ticker === 'ETH' && c.address === TEST_ADDRESS));
      await assertNoSuchCoin(s, 'ETH');
      await assertBalance(s, 'USDT-ERC20', formatUnits(await chainTokenBalance('USDT'), 6));
      await assertBalance(s, 'DAI-ERC20', formatUnits(await chainTokenBalance('DAI'), 18));

      // a second plain disable leaves it passive
      const again = await s.legacy('disable_coin', { coin: 'ETH' });
      assert.deepEqual(again, { status: 200, body: { result: { coin: 'ETH', cancelled_orders: [], passivized: true } } });

      // re-activation with another token: the kept tokens stay, the platform answers again
      const result = await enable(s, ['LINK-ERC20']);
      assert.deepEqual(Object.keys(result.erc20_addresses_infos[TEST_ADDRESS].balances), ['LINK-ERC20']);
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH', 'LINK-ERC20', 'USDT-ERC20']);
      await assertBalance(s, 'ETH', formatUnits(getBigInt((await devnet.request('eth_getBalance', [TEST_ADDRESS, 'latest'])) as string), 18));
      await mint('USDT', 2n);
      await assertBalance(s, 'USDT-ERC20', formatUnits(await chainTokenBalance('USDT'), 6));
      await assertBalance(s, 'DAI-ERC20', formatUnits(await chainTokenBalance('DAI'), 18));
      await assertBalance(s, 'LINK-ERC20', formatUnits(await chainTokenBalance('LINK'), 8));

      // active again: a second activation is refused as usual
      const twice = await s.v2('enable_eth_with_tokens', enableEthParams(s, []));
      assert.equal(twice.status, 400);
      assert.equal(twice.body.error_type, 'PlatformIsAlreadyActivated');
    } finally {
      await s.stop();
    }
  });

  test('while a passive platform is being re-activated its tokens still answer and the platform does not', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 300 });
    const s = await stack();
    try {
      await enable(s, ['USDT-ERC20']);
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      const reactivation = s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ['DAI-ERC20']), nodes: [{ url: proxy.url }] });
      while (proxy.stats().httpRequests === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal(s.service.registry.view('ETH').state, 'activating');
      await assertBalance(s, 'USDT-ERC20', formatUnits(await chainTokenBalance('USDT'), 6));
      await assertNoSuchCoin(s, 'ETH');
      await assertNoSuchCoin(s, 'DAI-ERC20');
      const concurrent = await s.v2('enable_eth_with_tokens', enableEthParams(s, []));
      assert.equal(concurrent.status, 400);
      assert.equal(concurrent.body.error_type, 'PlatformIsAlreadyActivated');
      assert.equal((await reactivation).status, 200);
      await assertBalance(s, 'DAI-ERC20', formatUnits(await chainTokenBalance('DAI'), 18));
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH', 'USDT-ERC20']);

      // a token disabled during the re-activation is really disabled, and stays so
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      proxy.reset();
      const again = s.v2('enable_eth_with_tokens', { ...enableEthParams(s, ['DAI-ERC20']), nodes: [{ url: proxy.url }] });
      while (proxy.stats().httpRequests === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal(s.service.registry.view('ETH').state, 'activating');
      const disabled = await s.legacy('disable_coin', { coin: 'USDT-ERC20' });
      assert.deepEqual(disabled, { status: 200, body: { result: { coin: 'USDT-ERC20', cancelled_orders: [], passivized: false } } });
      assert.equal((await again).status, 200);
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH']);
      await assertNoSuchCoin(s, 'USDT-ERC20');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('force_disable removes the platform and its tokens, from active and from passive', async () => {
    const s = await stack();
    try {
      await enable(s, ['USDT-ERC20', 'DAI-ERC20']);
      const forced = await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      assert.deepEqual(forced, { status: 200, body: { result: { coin: 'ETH', cancelled_orders: [], passivized: false } } });
      assert.deepEqual(await enabledTickers(s), []);
      for (const coin of ['ETH', 'USDT-ERC20', 'DAI-ERC20']) await assertNoSuchCoin(s, coin);

      await enable(s, ['USDT-ERC20']);
      assert.deepEqual(await enabledTickers(s), ['ETH', 'USDT-ERC20'], 'nothing from before comes back');
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      const fromPassive = await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      assert.deepEqual(fromPassive, { status: 200, body: { result: { coin: 'ETH', cancelled_orders: [], passivized: false } } });
      assert.deepEqual(await enabledTickers(s), []);
      await assertNoSuchCoin(s, 'USDT-ERC20');

      // a platform without tokens is disabled outright even without force
      await enable(s, []);
      const plain = await s.legacy('disable_coin', { coin: 'ETH' });
      assert.deepEqual(plain.body, { result: { coin: 'ETH', cancelled_orders: [], passivized: false } });
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
    }
  });

  test('disable_coin of a token disables only that token', async () => {
    const s = await stack();
    try {
      await enable(s, ['USDT-ERC20', 'DAI-ERC20']);
      const disabled = await s.legacy('disable_coin', { coin: 'USDT-ERC20' });
      assert.deepEqual(disabled, { status: 200, body: { result: { coin: 'USDT-ERC20', cancelled_orders: [], passivized: false } } });
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH']);
      await assertNoSuchCoin(s, 'USDT-ERC20');
      await assertBalance(s, 'DAI-ERC20', formatUnits(await chainTokenBalance('DAI'), 18));
      await assertBalance(s, 'ETH', formatUnits(getBigInt((await devnet.request('eth_getBalance', [TEST_ADDRESS, 'latest'])) as string), 18));

      const twice = await s.legacy('disable_coin', { coin: 'USDT-ERC20' });
      assert.equal(twice.status, 500);
      assert.equal(twice.body.error, 'No such coin: USDT-ERC20');

      // the platform now has one token left: disabling it passivizes
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      await assertBalance(s, 'DAI-ERC20', formatUnits(await chainTokenBalance('DAI'), 18));
    } finally {
      await s.stop();
    }
  });

  test('disable_coin of a coin that is not enabled: HTTP 500 with the reference body, byte for byte', async () => {
    const s = await stack();
    try {
      for (const coin of ['X', 'ETH', 'USDT-ERC20']) {
        const { status, text } = await rawPost(s, { userpass: TEST_PASSWORD, method: 'disable_coin', coin });
        assert.equal(status, 500);
        assert.equal(text, `{"error":"No such coin: ${coin}","orders":{"matching":[],"cancelled":[]},"active_swaps":[]}`);
      }
      await enable(s, []);
      const { status, text } = await rawPost(s, { userpass: TEST_PASSWORD, method: 'disable_coin', coin: 'DAI-ERC20' });
      assert.equal(status, 500);
      assert.equal(text, '{"error":"No such coin: DAI-ERC20","orders":{"matching":[],"cancelled":[]},"active_swaps":[]}');
      assert.deepEqual(await enabledTickers(s), ['ETH'], 'a failed disable changes nothing');
    } finally {
      await s.stop();
    }
  });
});

/** Exact decimal string of `raw` at `decimals` (independent of the service's formatter). */
function formatUnits(raw: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const whole = raw / base;
  const fraction = (raw % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
