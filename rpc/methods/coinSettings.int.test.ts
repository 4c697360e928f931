import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startGasStation, type EvmDevnet, type GasStation } from '../../devnet/index.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, devnetCoins, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import type { StoredEvent } from '../../spec/events.ts';

/** Issue 13: settings kept per coin, read back with coin_status, changed with the legacy setters. */

let devnet: EvmDevnet;
let station: GasStation;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: 1_000_000n }, { symbol: 'DAI', decimals: 18, amount: 0n }] });
  station = await startGasStation();
});
after(async () => {
  await station.stop();
  await devnet.stop();
});

/** Three distinct checksummed addresses (EIP-55 vectors, checked by their mixed case). */
const V2 = {
  taker_swap_v2_contract: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  maker_swap_v2_contract: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  nft_maker_swap_v2_contract: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
};

/** The devnet's coins with `required_confirmations` in the DAI entry and no `mm2` in ETH's. */
function coinsWith(overrides: { ethMm2?: boolean; ethWalletOnly?: boolean } = {}): unknown[] {
  return devnetCoins(devnet).map((raw) => {
    const entry = { ...(raw as Record<string, unknown>) };
    if (entry.coin === 'DAI-ERC20') entry.required_confirmations = 7;
    if (entry.coin === 'ETH' && overrides.ethMm2 === false) delete entry.mm2;
    if (entry.coin === 'ETH' && overrides.ethWalletOnly === true) entry.wallet_only = true;
    return entry;
  });
}

async function events(s: Stack): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) out.push(e);
  return out;
}

/** Every file of the event log directory, as text (to look for secrets). */
async function logText(s: Stack): Promise<string> {
  const dir = join(s.dir, 'db');
  const parts: string[] = [];
  for (const name of await readdir(dir, { recursive: true })) parts.push(await readFile(join(dir, name)).then((b) => b.toString('latin1')).catch(() => ''));
  return parts.join('\n');
}

async function coinStatus(s: Stack, ticker: string): Promise<any> {
  const { status, body } = await s.v2('coin_status', { ticker });
  assert.equal(status, 200, JSON.stringify(body));
  return body.result;
}

/** coin_status without `activated_at` and the gas station's price (checked on their own). */
function settingsPart(result: any): any {
  const { activated_at: _a, gas_station, ...rest } = result;
  return { ...rest, ...(gas_station === undefined ? {} : { gas_station: { policy: gas_station.policy, decimals: gas_station.decimals } }) };
}

describe('coin_status after a v2 activation', () => {
  let s: Stack;
  before(async () => {
    s = await startStack({ devnet, coins: coinsWith() });
    const params = enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20'], {
      erc20_tokens_requests: [{ ticker: 'USDT-ERC20', required_confirmations: 11 }, { ticker: 'DAI-ERC20' }],
      required_confirmations: 5,
      requires_notarization: true,
      mm2: 0,
      tx_history: true,
      swap_v2_contracts: V2,
      gas_station_url: station.url,
      gas_station_decimals: 9,
      gas_station_policy: { policy: 'Average' },
    });
    const { status, body } = await s.v2('enable_eth_with_tokens', params);
    assert.equal(status, 200, JSON.stringify(body));
  });
  after(() => s.stop());

  test('the platform: every setting as the request gave it, its tokens, and when it was activated', async () => {
    const result = await coinStatus(s, 'ETH');
    assert.deepEqual(settingsPart(result), {
      ticker: 'ETH',
      state: 'active',
      address: TEST_ADDRESS,
      derivation_method: { type: 'Iguana' },
      required_confirmations: 5,
      requires_notarization: true,
      mm2: 0,
      wallet_only: false,
      swap_contract_address: SWAP_CONTRACT,
      fallback_swap_contract: SWAP_CONTRACT,
      swap_v2_contracts: V2,
      tx_history: true,
      gas_station: { policy: 'Average', decimals: 9 },
      tokens: ['USDT-ERC20', 'DAI-ERC20'],
    });
    const activated = (await events(s)).find((e) => e.type === 'CoinActivated');
    assert.equal(result.activated_at, activated?.metadata.time);
  });

  test("a token: its own confirmations (its request's, else its entry's), its platform's notarization, history, contracts and station", async () => {
    const usdt = settingsPart(await coinStatus(s, 'USDT-ERC20'));
    assert.deepEqual(usdt, {
      ticker: 'USDT-ERC20',
      state: 'active',
      platform: 'ETH',
      address: TEST_ADDRESS,
      derivation_method: { type: 'Iguana' },
      required_confirmations: 11,
      requires_notarization: true,
      mm2: 1,
      wallet_only: false,
      swap_contract_address: SWAP_CONTRACT,
      fallback_swap_contract: SWAP_CONTRACT,
      swap_v2_contracts: V2,
      tx_history: true,
      gas_station: { policy: 'Average', decimals: 9 },
    });
    assert.equal((await coinStatus(s, 'DAI-ERC20')).required_confirmations, 7, "DAI's coins entry");
  });

  test('CoinActivated records the settings, and the log holds no gas station path or key', async () => {
    const activated = (await events(s)).find((e) => e.type === 'CoinActivated');
    assert.ok(activated?.type === 'CoinActivated');
    assert.deepEqual(activated.data.settings?.gasStation, { origin: new URL(station.url).origin, decimals: 9, policy: 'Average' });
    assert.equal(activated.data.tokens.find((t) => t.ticker === 'USDT-ERC20')?.settings?.requiredConfirmations, 11);
    const text = await logText(s);
    assert.match(text, /RequiresNotarizationSet|CoinActivated/, 'the log files were read');
    assert.doesNotMatch(text, /devnet-secret|ethgasAPI/);
  });

  test('set_required_confirmations and set_requires_notarization change one coin, answer as the reference, show in coin_status and are events', async () => {
    const confirmations = await s.legacy('set_required_confirmations', { coin: 'USDT-ERC20', confirmations: 2 });
    assert.equal(confirmations.status, 200);
    assert.deepEqual(confirmations.body, { result: { coin: 'USDT-ERC20', confirmations: 2 } });
    const nota = await s.legacy('set_requires_notarization', { coin: 'ETH', requires_notarization: false });
    assert.deepEqual(nota.body, { result: { coin: 'ETH', requires_notarization: false } });
    assert.equal((await coinStatus(s, 'USDT-ERC20')).required_confirmations, 2);
    assert.equal((await coinStatus(s, 'USDT-ERC20')).requires_notarization, true, 'the token keeps its own');
    assert.equal((await coinStatus(s, 'ETH')).requires_notarization, false);
    assert.equal((await coinStatus(s, 'ETH')).required_confirmations, 5);
    const changes = (await events(s)).filter((e) => e.type === 'RequiredConfirmationsSet' || e.type === 'RequiresNotarizationSet');
    assert.deepEqual(
      changes.map((e) => ({ type: e.type, stream: e.metadata.stream, data: e.data })),
      [
        { type: 'RequiredConfirmationsSet', stream: 'coin.ETH', data: { ticker: 'USDT-ERC20', platform: 'ETH', confirmations: 2 } },
        { type: 'RequiresNotarizationSet', stream: 'coin.ETH', data: { ticker: 'ETH', platform: 'ETH', requiresNotarization: false } },
      ],
    );
  });

  test('bad setter params are refused in legacy form and change nothing', async () => {
    for (const fields of [{ coin: 'ETH', confirmations: -1 }, { coin: 'ETH', confirmations: '4' }, { coin: 'ETH' }]) {
      const { status, body } = await s.legacy('set_required_confirmations', fields);
      assert.equal(status, 500, JSON.stringify(body));
      assert.equal(typeof body.error, 'string');
    }
    const { status } = await s.legacy('set_requires_notarization', { coin: 'ETH', requires_notarization: 'yes' });
    assert.equal(status, 500);
    assert.equal((await coinStatus(s, 'ETH')).required_confirmations, 5);
  });
});

describe('coins that are not enabled', () => {
  test("coin_status: NoSuchCoin with the reference's v2 error_data and HTTP 404; the setters: the legacy sentence", async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    try {
      for (const ticker of ['ETH', 'NOPE']) {
        const { status, body } = await s.v2('coin_status', { ticker });
        assert.equal(status, 404, JSON.stringify(body));
        assert.equal(body.error_type, 'NoSuchCoin');
        assert.deepEqual(body.error_data, { coin: ticker });
        assert.equal(body.error, `No such coin ${ticker}`);
        const set = await s.legacy('set_required_confirmations', { coin: ticker, confirmations: 1 });
        assert.equal(set.status, 500);
        assert.deepEqual(set.body, { error: `No such coin ${ticker}` });
        const nota = await s.legacy('set_requires_notarization', { coin: ticker, requires_notarization: true });
        assert.deepEqual(nota.body, { error: `No such coin ${ticker}` });
      }
      const missing = await s.v2('coin_status', {});
      assert.equal(missing.body.error_type, 'InvalidRequest');
    } finally {
      await s.stop();
    }
  });

  test('a passive platform shows as passive but takes no setter (as the reference finds only available coins); its token does', async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20']))).status, 200);
      assert.deepEqual((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      assert.equal((await coinStatus(s, 'ETH')).state, 'passive');
      const refused = await s.legacy('set_required_confirmations', { coin: 'ETH', confirmations: 1 });
      assert.deepEqual(refused.body, { error: 'No such coin ETH' });
      assert.deepEqual((await s.legacy('set_required_confirmations', { coin: 'USDT-ERC20', confirmations: 1 })).body, {
        result: { coin: 'USDT-ERC20', confirmations: 1 },
      });
      assert.equal((await coinStatus(s, 'USDT-ERC20')).required_confirmations, 1);
      await s.legacy('disable_coin', { coin: 'USDT-ERC20' });
      assert.equal((await s.v2('coin_status', { ticker: 'USDT-ERC20' })).status, 404, 'a disabled token is gone');
      assert.equal((await s.v2('coin_status', { ticker: 'ETH' })).status, 404, 'and its passive platform with it');
    } finally {
      await s.stop();
    }
  });

  test('after a restart every coin is inactive again: coin_status answers NoSuchCoin', async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    const dbdir = join(s.dir, 'db');
    assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
    await s.legacy('set_required_confirmations', { coin: 'ETH', confirmations: 9 });
    await s.stop();
    const again = await startStack({ devnet, coins: coinsWith(), dbdir });
    try {
      assert.equal((await again.v2('coin_status', { ticker: 'ETH' })).status, 404);
    } finally {
      await again.stop();
    }
  });
});

describe('mm2, defaults and the legacy methods', () => {
  test('v2 without mm2 in the request or the coins entry reports null; defaults: 3 confirmations, no notarization, no history, no station', async () => {
    const s = await startStack({ devnet, coins: coinsWith({ ethMm2: false }) });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const result = await coinStatus(s, 'ETH');
      assert.equal(result.mm2, null);
      assert.equal(result.required_confirmations, 3);
      assert.equal(result.requires_notarization, false);
      assert.equal(result.tx_history, false);
      assert.equal(result.gas_station, undefined);
      assert.equal(result.swap_v2_contracts, undefined);
    } finally {
      await s.stop();
    }
  });

  test('legacy enable: its settings in coin_status (mm2 from the entry, the gas station by policy and decimals, tx_history)', async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    try {
      const { status, body } = await s.legacy('enable', {
        coin: 'ETH',
        urls: [devnet.url],
        swap_contract_address: SWAP_CONTRACT,
        gas_station_url: station.url,
        required_confirmations: 6,
        tx_history: true,
      });
      assert.equal(status, 200, JSON.stringify(body));
      const result = await coinStatus(s, 'ETH');
      assert.deepEqual(settingsPart(result), {
        ticker: 'ETH',
        state: 'active',
        address: TEST_ADDRESS,
        derivation_method: { type: 'Iguana' },
        required_confirmations: 6,
        requires_notarization: false,
        mm2: 1,
        wallet_only: false,
        swap_contract_address: SWAP_CONTRACT,
        tx_history: true,
        gas_station: { policy: 'MeanAverageFast', decimals: 8 },
        tokens: [],
      });
    } finally {
      await s.stop();
    }
  });

  test('gas_station_decimals or _policy without gas_station_url would have no effect: refused', async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { gas_station_decimals: 9 }));
      assert.equal(status, 400);
      assert.equal(body.error_type, 'InvalidRequest');
      assert.match(body.error, /gas_station_decimals/);
      assert.equal((await s.v2('coin_status', { ticker: 'ETH' })).status, 404, 'nothing was activated');
    } finally {
      await s.stop();
    }
  });
});

describe('MM2.json use_trading_proto_v2', () => {
  test('a trading EVM coin then needs swap_v2_contracts, each checked like the other contracts', async () => {
    const s = await startStack({ devnet, coins: coinsWith(), config: { use_trading_proto_v2: true } });
    try {
      const missing = await s.v2('enable_eth_with_tokens', enableEthParams(s, []));
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error_type, 'InvalidRequest');
      assert.match(missing.body.error, /^params\.swap_v2_contracts is required to enable ETH: MM2\.json sets use_trading_proto_v2/);
      const zero = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { swap_v2_contracts: { ...V2, taker_swap_v2_contract: `0x${'0'.repeat(40)}` } }));
      assert.equal(zero.body.error, "params.swap_v2_contracts.taker_swap_v2_contract can't be zero address");
      const badChecksum = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { swap_v2_contracts: { ...V2, maker_swap_v2_contract: '0xFB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' } }));
      assert.equal(badChecksum.body.error, 'params.swap_v2_contracts.maker_swap_v2_contract is not a valid EVM address');
      assert.equal((await s.v2('coin_status', { ticker: 'ETH' })).status, 404, 'nothing half-registered');
      const ok = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { swap_v2_contracts: V2 }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual((await coinStatus(s, 'ETH')).swap_v2_contracts, V2);
    } finally {
      await s.stop();
    }
  });

  test('a wallet-only coin makes no swaps: it needs none', async () => {
    const s = await startStack({ devnet, coins: coinsWith({ ethWalletOnly: true }), config: { use_trading_proto_v2: true } });
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), swap_contract_address: undefined, fallback_swap_contract: undefined });
      assert.equal(status, 200, JSON.stringify(body));
      const result = await coinStatus(s, 'ETH');
      assert.equal(result.wallet_only, true);
      assert.equal(result.swap_contract_address, undefined);
    } finally {
      await s.stop();
    }
  });

  test('without the setting, swap_v2_contracts stay optional but are still checked when given', async () => {
    const s = await startStack({ devnet, coins: coinsWith() });
    try {
      const bad = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { swap_v2_contracts: { ...V2, nft_maker_swap_v2_contract: 'nope' } }));
      assert.equal(bad.body.error, 'params.swap_v2_contracts.nft_maker_swap_v2_contract is not a valid EVM address');
    } finally {
      await s.stop();
    }
  });
});
