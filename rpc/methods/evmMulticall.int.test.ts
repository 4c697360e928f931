/**
 * EVM balances on their three read paths (docs/compatibility.md §7): the deployless call (every
 * node, from the first request on), `aggregate3` where the chain has Multicall3, and plain calls
 * for a node that refuses calls without `to`. The same answers and errors on each, and the node
 * calls each costs, counted by a proxy.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'ethers';
import { startLatencyProxy, startLimitedNode, type EvmDevnet, type LatencyProxy, type NodeLimits } from '../../devnet/index.ts';
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

/** A service on `devnet` whose node (with `limits`, if any) is reached through a counting proxy. */
async function stackOn(devnet: EvmDevnet, config: Record<string, unknown> = {}, limits?: NodeLimits): Promise<{ s: Stack; proxy: LatencyProxy; stop: () => Promise<void> }> {
  const node = limits === undefined ? undefined : await startLimitedNode(devnet.request, limits);
  const proxy = await startLatencyProxy({ target: node?.url ?? devnet.url, latencyMs: 0 });
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
  return { s, proxy, stop: async () => (await s.stop(), await proxy.stop(), await node?.stop()) };
}

const ethWithTokens = (s: Stack, url: string, tokens: string[], ticker = 'ETH') => s.v2('enable_eth_with_tokens', { ...enableEthParams(s, tokens), ticker, nodes: [{ url }] });
const legacyEnable = (s: Stack, url: string, coin: string) => s.legacy('enable', { coin, urls: [url], swap_contract_address: SWAP_CONTRACT });
/** An activation result without the block height (the two chains need not agree on it). */
const balancesOf = (result: any) => ({ eth: result.eth_addresses_infos, erc20: result.erc20_addresses_infos });

const USDT = '1234.567891';
const DAI = '5.000000000000000001';
/** The wallet's token balances, by ticker. */
const tokenBalances = (result: any) => Object.fromEntries(Object.entries(Object.values<any>(result.erc20_addresses_infos)[0].balances).map(([t, b]: [string, any]) => [t, b.spendable]));
const disable = async (s: Stack, coin = 'ETH') => assert.equal((await s.legacy('disable_coin', { coin })).status, 200);

describe('EVM balances: deployless, through Multicall3, or plain', () => {
  test('enable_eth_with_tokens: one request from the first contact, with or without Multicall3; then aggregate3 where the chain has it', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    try {
      const tokens = ['USDT-ERC20', 'DAI-ERC20', 'DAI-NODEC'];
      const viaContract = await ethWithTokens(m.s, m.proxy.url, tokens);
      assert.equal(viaContract.status, 200, JSON.stringify(viaContract.body));
      const deployless = await ethWithTokens(b.s, b.proxy.url, tokens);
      assert.equal(deployless.status, 200, JSON.stringify(deployless.body));
      assert.deepEqual(balancesOf(deployless.body.result), balancesOf(viaContract.body.result));
      assert.deepEqual(tokenBalances(deployless.body.result), { 'USDT-ERC20': USDT, 'DAI-ERC20': DAI, 'DAI-NODEC': DAI });
      assert.equal(Object.values<any>(deployless.body.result.eth_addresses_infos)[0].balances.spendable, '1.234500000000000001');
      // First contact on both: the block and one deployless call (which also checks for Multicall3), one request.
      for (const { proxy } of [m, b]) {
        assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 });
        assert.equal(proxy.stats().callsWithoutTo, 1);
        assert.equal(proxy.stats().httpRequests, 1);
        proxy.reset();
      }

      // Known nodes: aggregate3 where the chain has Multicall3 (cheaper for the node), deployless where not.
      for (const { s, proxy } of [m, b]) {
        await disable(s);
        assert.deepEqual(tokenBalances((await ethWithTokens(s, proxy.url, tokens)).body.result), { 'USDT-ERC20': USDT, 'DAI-ERC20': DAI, 'DAI-NODEC': DAI });
        assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 });
        assert.equal(proxy.stats().httpRequests, 1);
      }
      assert.equal(m.proxy.stats().callsWithoutTo, 0, 'aggregate3 has a `to`');
      assert.equal(b.proxy.stats().callsWithoutTo, 1);
    } finally {
      await m.stop();
      await b.stop();
    }
  });

  test('right after a restart, a chain without Multicall3 is still read in one request', async () => {
    const proxy = await startLatencyProxy({ target: bare.url, latencyMs: 0 });
    try {
      for (let run = 0; run < 2; run++) {
        const s = await startStack({ devnet: bare, extraCoins: [erc20('DAI-NODEC', bare.tokens[1]!.address)] });
        try {
          proxy.reset();
          const answer = await ethWithTokens(s, proxy.url, ['USDT-ERC20', 'DAI-NODEC']);
          assert.deepEqual(tokenBalances(answer.body.result), { 'USDT-ERC20': USDT, 'DAI-NODEC': DAI });
          assert.deepEqual({ ...proxy.stats().byMethod, requests: proxy.stats().httpRequests }, { eth_blockNumber: 1, eth_call: 1, requests: 1 });
        } finally {
          await s.stop();
        }
      }
    } finally {
      await proxy.stop();
    }
  });

  test('legacy enable of ETH and of an ERC20 without decimals: same answers on every path; my_balance does not re-read the decimals', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    const p = await stackOn(bare, {}, { refuseCallsWithoutTo: true });
    try {
      for (const coin of ['ETH', 'DAI-NODEC']) {
        const viaContract = await legacyEnable(m.s, m.proxy.url, coin);
        assert.equal(viaContract.body.result, 'success', JSON.stringify(viaContract.body));
        assert.deepEqual((await legacyEnable(b.s, b.proxy.url, coin)).body, viaContract.body);
        assert.deepEqual((await legacyEnable(p.s, p.proxy.url, coin)).body, viaContract.body);
      }
      // The first enable probes; the second, on a node known to have Multicall3, goes through aggregate3.
      assert.deepEqual(m.proxy.stats().byMethod, { eth_blockNumber: 2, eth_call: 2 });
      assert.equal(m.proxy.stats().callsWithoutTo, 1);
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 2, eth_call: 2 });
      assert.equal(b.proxy.stats().callsWithoutTo, 2);
      // Refused once, then plain calls: an ERC20 on its own reads the native balance too, as before.
      assert.deepEqual(p.proxy.stats().byMethod, { eth_blockNumber: 2, eth_call: 1 + 2, eth_getBalance: 2 });
      b.proxy.reset();
      const balance = await b.s.legacy('my_balance', { coin: 'DAI-NODEC' });
      assert.equal(balance.body.balance, DAI);
      assert.deepEqual(b.proxy.stats().byMethod, { eth_blockNumber: 1, eth_call: 1 }); // native and balanceOf, no decimals
    } finally {
      await m.stop();
      await b.stop();
      await p.stop();
    }
  });

  test('a fresh HD wallet at gap 20: every balance in one deployless call, nonces beside it, one request; the same account on every path', async () => {
    const config = { enable_hd: true, passphrase: MNEMONIC };
    const m = await stackOn(withContract, config);
    const b = await stackOn(bare, config);
    const p = await stackOn(bare, config, { refuseCallsWithoutTo: true });
    try {
      const viaContract = await ethWithTokens(m.s, m.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.equal(viaContract.status, 200, JSON.stringify(viaContract.body));
      for (const { s, proxy } of [b, p]) {
        const other = await ethWithTokens(s, proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
        assert.deepEqual(other.body.result.wallet_balance, viaContract.body.result.wallet_balance);
      }
      for (const { proxy } of [m, b]) {
        assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_getTransactionCount: 20, eth_call: 1 });
        assert.equal(proxy.stats().httpRequests, 1);
      }
      assert.deepEqual(p.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getTransactionCount: 20, eth_call: 1 + 40, eth_getBalance: 20 });
      assert.equal(p.proxy.stats().httpRequests, 2);
    } finally {
      await m.stop();
      await b.stop();
      await p.stop();
    }
  });

  test('a token whose contract reverts, or has no code, fails the activation with the same error on every path', async () => {
    const m = await stackOn(withContract);
    const b = await stackOn(bare);
    const p = await stackOn(bare, {}, { refuseCallsWithoutTo: true });
    try {
      for (const token of ['REVERT-ERC20', 'NOCODE-ERC20']) {
        for (const known of [false, true]) {
          const viaContract = await ethWithTokens(m.s, m.proxy.url, ['USDT-ERC20', token]);
          assert.notEqual(viaContract.status, 200);
          assert.match(JSON.stringify(viaContract.body), new RegExp(token === 'REVERT-ERC20' ? 'balanceOf\\(\\) failed' : 'no contract answers balanceOf'));
          assert.deepEqual(await ethWithTokens(b.s, b.proxy.url, ['USDT-ERC20', token]), viaContract, `deployless, node known: ${known}`);
          assert.deepEqual(await ethWithTokens(p.s, p.proxy.url, ['USDT-ERC20', token]), viaContract, `plain, node known: ${known}`);
        }
        const legacy = await legacyEnable(m.s, m.proxy.url, token);
        assert.ok(legacy.body.error, JSON.stringify(legacy.body));
        assert.deepEqual(await legacyEnable(b.s, b.proxy.url, token), legacy);
        assert.deepEqual(await legacyEnable(p.s, p.proxy.url, token), legacy);
      }
      for (const { s } of [m, b, p]) assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await m.stop();
      await b.stop();
      await p.stop();
    }
  });

  test('a node whose gas cap cuts a deployless call short: the rest in concurrent calls of the size it allowed, never the whole chunk again; later reads in chunks that size', async () => {
    const config = { enable_hd: true, passphrase: MNEMONIC };
    const b = await stackOn(bare, config);
    const capped = await stackOn(bare, config, { callGasCap: 1_500_000 });
    const starved = await stackOn(bare, config, { callGasCap: 300_000 });
    try {
      const full = await ethWithTokens(b.s, b.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.equal(full.status, 200, JSON.stringify(full.body));
      const cut = await ethWithTokens(capped.s, capped.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.deepEqual(cut.body.result.wallet_balance, full.body.result.wallet_balance);
      const { byMethod, httpRequests, callsWithoutTo } = capped.proxy.stats();
      assert.equal(httpRequests, 2, 'the first call, then the rest at once');
      assert.ok(callsWithoutTo > 2 && byMethod.eth_call === callsWithoutTo && byMethod.eth_getBalance === undefined, JSON.stringify(capped.proxy.stats()));
      // The node's cap is remembered: the next read sends chunks it answers whole, all in one request.
      await disable(capped.s);
      capped.proxy.reset();
      const again = await ethWithTokens(capped.s, capped.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.deepEqual(again.body.result.wallet_balance, full.body.result.wallet_balance);
      assert.equal(capped.proxy.stats().httpRequests, 1, JSON.stringify(capped.proxy.stats()));
      assert.equal(capped.proxy.stats().byMethod.eth_call, capped.proxy.stats().callsWithoutTo);
      // A cap too low for a single read: the node answers no reads, so they are made as plain calls.
      const plain = await ethWithTokens(starved.s, starved.proxy.url, ['USDT-ERC20', 'DAI-ERC20']);
      assert.deepEqual(plain.body.result.wallet_balance, full.body.result.wallet_balance);
      assert.deepEqual(starved.proxy.stats().byMethod, { eth_blockNumber: 1, eth_getTransactionCount: 20, eth_call: 1 + 40, eth_getBalance: 20 });
      assert.equal(starved.proxy.stats().httpRequests, 2);
    } finally {
      await b.stop();
      await capped.stop();
      await starved.stop();
    }
  });

  test('multicall_address: a platform\'s own Multicall3 is found by the first read and used after; one that refuses aggregate3 is read deployless', async () => {
    const b = await stackOn(bare);
    try {
      const own = await ethWithTokens(b.s, b.proxy.url, [], 'ETHM');
      assert.equal(own.status, 200, JSON.stringify(own.body));
      await disable(b.s, 'ETHM');
      b.proxy.reset();
      assert.deepEqual((await ethWithTokens(b.s, b.proxy.url, [], 'ETHM')).body.result.eth_addresses_infos, own.body.result.eth_addresses_infos);
      assert.deepEqual({ ...b.proxy.stats().byMethod, withoutTo: b.proxy.stats().callsWithoutTo }, { eth_blockNumber: 1, eth_call: 1, withoutTo: 0 }, 'aggregate3 at ETHM\'s contract');
      for (let run = 0; run < 2; run++) {
        b.proxy.reset();
        const refused = await ethWithTokens(b.s, b.proxy.url, [], 'ETHR');
        assert.equal(refused.status, 200, JSON.stringify(refused.body));
        assert.deepEqual(refused.body.result.eth_addresses_infos, own.body.result.eth_addresses_infos);
        // Code is there but aggregate3 reverts: the probe says so, and the node stays on the deployless read.
        assert.deepEqual({ ...b.proxy.stats().byMethod, withoutTo: b.proxy.stats().callsWithoutTo }, { eth_blockNumber: 1, eth_call: 1, withoutTo: 1 });
        await disable(b.s, 'ETHR');
      }
    } finally {
      await b.stop();
    }
  });
});
