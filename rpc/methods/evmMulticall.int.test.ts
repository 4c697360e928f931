/**
 * EVM balances through the Multicall3 contract (docs/compatibility.md §7): the same answers and
 * errors with the contract and without it, and the node calls each path costs, counted by a proxy.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'ethers';
import { startLatencyProxy, type EvmDevnet, type LatencyProxy } from '../../devnet/index.ts';
import { compileMulticall, installMulticall } from '../../devnet/evm/multicallContract.ts';
import { SWAP_CONTRACT, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';

/** Code that reverts every call with no data: a token contract that does not answer. */
const REVERTER = getAddress('0x00000000000000000000000000000000000bad01');
/** Where the bare devnet gets a multicall contract of its own (a platform's `multicall_address`). */
const OTHER_MULTICALL = getAddress('0x00000000000000000000000000000000000ca112');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const TOKENS = [
  { symbol: 'USDT', decimals: 6, amount: 1_234_567_891n },
  { symbol: 'DAI', decimals: 18, amount: 5n * 10n ** 18n + 1n },
];

let withContract: EvmDevnet;
let bare: EvmDevnet;
before(async () => {
  [withContract, bare] = await Promise.all([
    startTestDevnet({ nativeWei: 1_234_500_000_000_000_001n, tokens: TOKENS }),
    startTestDevnet({ nativeWei: 1_234_500_000_000_000_001n, tokens: TOKENS, multicall: false }),
  ]);
  for (const devnet of [withContract, bare]) await devnet.request('hardhat_setCode', [REVERTER, '0x60006000fd']);
  await installMulticall(bare.request, await compileMulticall(), OTHER_MULTICALL);
});
after(() => Promise.all([withContract?.stop(), bare?.stop()]));

const erc20 = (coin: string, address: string, decimals?: number) => ({
  coin,
  mm2: 1,
  derivation_path: "m/44'/60'",
  ...(decimals === undefined ? {} : { decimals }),
  protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: address } },
});
const platform = (coin: string, chainId: number, multicall: string) => ({
  coin,
  mm2: 1,
  decimals: 18,
  derivation_path: "m/44'/60'",
  multicall_address: multicall,
  protocol: { type: 'ETH', protocol_data: { chain_id: chainId } },
});

/** A service on `devnet` whose node is reached through a counting proxy. */
async function stackOn(devnet: EvmDevnet, config: Record<string, unknown> = {}): Promise<{ s: Stack; proxy: LatencyProxy; stop: () => Promise<void> }> {
  const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
  const s = await startStack({
    devnet,
    config,
    extraCoins: [
      erc20('REVERT-ERC20', REVERTER, 6),
      erc20('NOCODE-ERC20', '0x000000000000000000000000000000000000dEaD', 6),
      erc20('DAI-NODEC', devnet.tokens[1]!.address),
      platform('ETHM', devnet.chainId, OTHER_MULTICALL),
      platform('ETHR', devnet.chainId, REVERTER),
    ],
  });
  return { s, proxy, stop: async () => (await s.stop(), await proxy.stop()) };
}

const ethWithTokens = (s: Stack, url: string, tokens: string[], ticker = 'ETH') => s.v2('enable_eth_with_tokens', { ...enableEthParams(s, tokens), ticker, nodes: [{ url }] });
const legacyEnable = (s: Stack, url: string, coin: string) => s.legacy('enable', { coin, urls: [url], swap_contract_address: SWAP_CONTRACT });
/** An activation result without the block height (the two chains need not agree on it). */
const balancesOf = (result: any) => ({ eth: result.eth_addresses_infos, erc20: result.erc20_addresses_infos });

describe('EVM balances through the multicall contract', () => {
  test('enable_eth_with_tokens: 3 calls in 1 request with the contract; the same balances without it, then no second eth_getCode', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    try {
      const tokens = ['USDT-ERC20', 'DAI-ERC20', 'DAI-NODEC'];
      const viaContract = await ethWithTokens(m.s, m.proxy.url, tokens);
      assert.equal(viaContract.status, 200, JSON.stringify(viaContract.body));
      assert.deepEqual(m.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_call: 1 });
      assert.equal(m.proxy.stats().httpRequests, 1);

      const plain = await ethWithTokens(b.s, b.proxy.url, tokens);
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.deepEqual(balancesOf(plain.body.result), balancesOf(viaContract.body.result));
      assert.equal(plain.body.result.erc20_addresses_infos[Object.keys(plain.body.result.erc20_addresses_infos)[0]!].balances['DAI-NODEC'].spendable, '5.000000000000000001');
      // First batch: block, code ('0x'), the aggregate3 (answered '0x'); then the plain calls.
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_call: 1 + 4, eth_getBalance: 1 });
      assert.equal(b.proxy.stats().httpRequests, 2);

      // The node is remembered as lacking the contract (for every coin that uses it): plain calls, one request.
      for (const { s, proxy } of [m, b]) {
        assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
        proxy.reset();
        assert.equal((await ethWithTokens(s, proxy.url, tokens)).status, 200);
        assert.equal(proxy.stats().httpRequests, 1);
      }
      assert.deepEqual(m.proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 });
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 4, eth_getBalance: 1 });
    } finally {
      await m.stop();
      await b.stop();
    }
  });

  test('legacy enable of ETH and of an ERC20 without decimals: same answers both ways; my_balance does not re-read the decimals', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    try {
      for (const coin of ['ETH', 'DAI-NODEC']) {
        const viaContract = await legacyEnable(m.s, m.proxy.url, coin);
        assert.equal(viaContract.body.result, 'success', JSON.stringify(viaContract.body));
        assert.deepEqual((await legacyEnable(b.s, b.proxy.url, coin)).body, viaContract.body);
      }
      assert.deepEqual(m.proxy.stats().byMethod, { eth_blockNumber: 2, eth_getCode: 1, eth_call: 2 });
      // An ERC20 on its own reads the native balance too, as before.
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 2, eth_getCode: 1, eth_call: 1 + 2, eth_getBalance: 2 });
      b.proxy.reset();
      const balance = await b.s.legacy('my_balance', { coin: 'DAI-NODEC' });
      assert.equal(balance.body.balance, '5.000000000000000001');
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getBalance: 1, eth_call: 1 }); // balanceOf only, no decimals
    } finally {
      await m.stop();
      await b.stop();
    }
  });

  test('HD scan at gap 20: balances in one aggregate3, nonces batched beside it; the same account without the contract', async () => {
    const config = { enable_hd: true, passphrase: MNEMONIC };
    const m = await stackOn(withContract, config);
    const b = await stackOn(bare, config);
    try {
      const viaContract = await ethWithTokens(m.s, m.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.equal(viaContract.status, 200, JSON.stringify(viaContract.body));
      assert.deepEqual(m.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_getTransactionCount: 20, eth_call: 1 });
      assert.equal(m.proxy.stats().httpRequests, 1);
      const plain = await ethWithTokens(b.s, b.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.deepEqual(plain.body.result.wallet_balance, viaContract.body.result.wallet_balance);
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_getTransactionCount: 20, eth_call: 1 + 40, eth_getBalance: 20 });
    } finally {
      await m.stop();
      await b.stop();
    }
  });

  test('a token whose contract reverts, or has no code, fails the activation with the same error both ways', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    try {
      for (const token of ['REVERT-ERC20', 'NOCODE-ERC20']) {
        const viaContract = await ethWithTokens(m.s, m.proxy.url, ['USDT-ERC20', token]);
        assert.notEqual(viaContract.status, 200);
        assert.match(JSON.stringify(viaContract.body), new RegExp(token === 'REVERT-ERC20' ? 'balanceOf\\(\\) failed' : 'no contract answers balanceOf'));
        assert.deepEqual(await ethWithTokens(b.s, b.proxy.url, ['USDT-ERC20', token]), viaContract);
        const legacy = await legacyEnable(m.s, m.proxy.url, token);
        assert.ok(legacy.body.error, JSON.stringify(legacy.body));
        assert.deepEqual(await legacyEnable(b.s, b.proxy.url, token), legacy);
      }
      assert.deepEqual((await m.s.v2('get_enabled_coins')).body.result.coins, []);
      assert.deepEqual((await b.s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await m.stop();
      await b.stop();
    }
  });

  test('multicall_address: a platform reads through its own contract; one that refuses aggregate3 falls back, same balance', async () => {
    const b = await stackOn(bare);
    try {
      const own = await ethWithTokens(b.s, b.proxy.url, [], 'ETHM');
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_call: 1 });
      b.proxy.reset();
      const refused = await ethWithTokens(b.s, b.proxy.url, [], 'ETHR');
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.result.eth_addresses_infos, own.body.result.eth_addresses_infos);
      // The code is there but aggregate3 reverts: remembered as lacking, read with plain calls.
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getCode: 1, eth_call: 1, eth_getBalance: 1 });
    } finally {
      await b.stop();
    }
  });
});
