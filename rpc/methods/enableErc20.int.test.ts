/**
 * `enable_erc20` (docs/compatibility.md §18): an ERC20 or TRC20 added to its active platform, with
 * the exact bodies the reference's GUI client sends, against the devnet chain and TRON node.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvmDevnet } from '../../devnet/index.ts';
import { evmToTronBase58 } from '../../infra/keys/tronAddress.ts';
import { enableErc20Result } from '../../spec/enableErc20.ts';
import { coinStream } from '../../events/log/eventLog.ts';
import { EnabledCoinsProjection } from '../../events/projections/enabledCoins.ts';
import { nextCoinStatus, type CoinStatus } from '../../events/projections/coinStatus.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, enableEthParams, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';

const TRON_ADDRESS = evmToTronBase58(TEST_ADDRESS);
const USDT = 1_234_567_891n; // 1234.567891 at 6 decimals
const DAI = 5n * 10n ** 18n + 1n; // 5.000000000000000001 at 18

let devnet: EvmDevnet;
before(async () => {
  devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }, { symbol: 'DAI', decimals: 18, amount: DAI }] });
});
after(() => devnet.stop());

const stack = (): Promise<Stack> => startStack({ devnet, tron: true });

/** The reference's client's body for an ERC20 (client-side: nodes and contracts from the token's config). */
function erc20Body(s: Stack, ticker: string) {
  return {
    ticker,
    activation_params: {
      requires_notarization: false,
      priv_key_policy: { type: 'ContextPrivKey' },
      nodes: [{ url: s.devnet.url, gui_auth: false }],
      swap_contract_address: SWAP_CONTRACT,
      fallback_swap_contract: SWAP_CONTRACT,
    },
  };
}

/** The same for a TRC20: no swap contracts. */
function trc20Body(s: Stack, ticker: string) {
  return {
    ticker,
    activation_params: { requires_notarization: false, priv_key_policy: { type: 'ContextPrivKey' }, nodes: [{ url: s.tron!.url, gui_auth: false }] },
  };
}

async function events(s: Stack, stream?: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) if (stream === undefined || e.metadata.stream === stream) out.push(e);
  return out;
}

const enabledTickers = async (s: Stack): Promise<string[]> =>
  ((await s.v2('get_enabled_coins', null)).body.result.coins as { ticker: string }[]).map((c) => c.ticker).sort();

describe('enable_erc20 after its platform (devnet)', () => {
  test('an ERC20: the reference result shape, exact balance at the platform address, listed once, events on the platform stream', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const { status, body } = await s.post({ method: 'enable_erc20', mmrpc: '2.0', params: erc20Body(s, 'USDT-ERC20'), userpass: 'Test-rpc-pw-91!' });
      assert.equal(status, 200, JSON.stringify(body));
      assert.ok(enableErc20Result.check(body.result), JSON.stringify(body.result));
      assert.deepEqual(body.result, {
        balances: { [TEST_ADDRESS]: { spendable: '1234.567891', unspendable: '0' } },
        platform_coin: 'ETH',
        token_contract_address: devnet.tokens[0]!.address,
        required_confirmations: 3,
      });
      assert.equal(body.id, null);
      assert.deepEqual(await enabledTickers(s), ['ETH', 'USDT-ERC20']);
      const balance = await s.legacy('my_balance', { coin: 'USDT-ERC20' });
      assert.deepEqual(balance.body, { coin: 'USDT-ERC20', balance: '1234.567891', unspendable_balance: '0', address: TEST_ADDRESS });
      const eth = await events(s, coinStream('ETH'));
      assert.deepEqual(eth.map((e) => e.type).filter((t) => t.startsWith('Token')), ['TokenActivationRequested', 'TokenActivated']);
      const activated = eth.find((e) => e.type === 'TokenActivated')!;
      assert.deepEqual({ ...activated.data, settings: undefined }, {
        ticker: 'USDT-ERC20',
        platform: 'ETH',
        contractAddress: devnet.tokens[0]!.address,
        decimals: 6,
        balance: { spendable: '1234.567891', unspendable: '0' },
        settings: undefined,
      });
      // The token keeps its settings: coin_status reads them from the log's projection.
      const tokenStatus = await s.v2('coin_status', { ticker: 'USDT-ERC20' });
      assert.equal(tokenStatus.status, 200, JSON.stringify(tokenStatus.body));
      assert.equal(tokenStatus.body.result.required_confirmations, 3);
      assert.equal(tokenStatus.body.result.swap_contract_address, SWAP_CONTRACT);
    } finally {
      await s.stop();
    }
  });

  test('a TRC20 after TRX: the TRON address and base58 contract; required_confirmations given is kept', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableTrxParams(s, []))).status, 200);
      const body = trc20Body(s, 'DAI-TRC20');
      const answer = await s.v2('enable_erc20', { ...body, activation_params: { ...body.activation_params, required_confirmations: 7 } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.result, {
        balances: { [TRON_ADDRESS]: { spendable: '5.000000000000000001', unspendable: '0' } },
        platform_coin: 'TRX',
        token_contract_address: evmToTronBase58(devnet.tokens[1]!.address),
        required_confirmations: 7,
      });
      assert.deepEqual(await enabledTickers(s), ['DAI-TRC20', 'TRX']);
      const usdt = await s.v2('enable_erc20', trc20Body(s, 'USDT-TRC20'));
      assert.deepEqual(usdt.body.result.balances, { [TRON_ADDRESS]: { spendable: '1234.567891', unspendable: '0' } });
    } finally {
      await s.stop();
    }
  });

  test('platform not active: PlatformCoinIsNotActivated (400), nothing recorded; a passive platform is not active either', async () => {
    const s = await stack();
    try {
      const { status, body } = await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'));
      assert.equal(status, 400);
      assert.equal(body.error_type, 'PlatformCoinIsNotActivated');
      assert.equal(body.error, 'Platform coin ETH is not activated');
      assert.equal(body.error_data, 'ETH');
      assert.deepEqual((await events(s)).map((e) => e.type), ['SessionStarted']);
      // ETH kept passive for DAI-ERC20: not available for a new token, as in the reference.
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, ['DAI-ERC20']))).status, 200);
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      const passive = await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'));
      assert.equal(passive.body.error_type, 'PlatformCoinIsNotActivated');
      // Unknown token and a platform ticker: the reference's config errors.
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'NOPE-ERC20'))).body.error_type, 'TokenConfigIsNotFound');
      assert.equal((await s.v2('enable_erc20', trc20Body(s, 'TRX'))).body.error_type, 'UnexpectedTokenProtocol');
    } finally {
      await s.stop();
    }
  });

  test('already activated, whichever method enabled it: TokenIsAlreadyActivated with "activated already" in its text', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20']))).status, 200);
      const again = await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'));
      assert.equal(again.status, 400);
      assert.equal(again.body.error_type, 'TokenIsAlreadyActivated');
      assert.equal(again.body.error, 'Token USDT-ERC20 is activated already');
      assert.match(JSON.stringify(again.body), /activated already/);
      // Checked first: even a malformed request for it gets this answer.
      assert.equal((await s.v2('enable_erc20', { ticker: 'USDT-ERC20', activation_params: 5 })).body.error_type, 'TokenIsAlreadyActivated');
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'ETH'))).body.error, 'Token ETH is activated already');
      // Force-disabling the platform lets go of a token enable_erc20 added.
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'DAI-ERC20'))).status, 200);
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'DAI-ERC20'))).status, 200);
      // A token added by enable_erc20 is held for every other method too, in each one's own form.
      const legacy = await s.legacy('enable', { coin: 'DAI-ERC20', urls: [s.devnet.url], swap_contract_address: SWAP_CONTRACT });
      assert.deepEqual([legacy.status, legacy.body], [500, { error: 'Coin DAI-ERC20 already initialized' }]);
    } finally {
      await s.stop();
    }
  });

  test('concurrent enable_erc20 of one token: one activation, the others already activated', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const answers = await Promise.all(Array.from({ length: 6 }, () => s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'))));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400, 400, 400, 400, 400]);
      for (const a of answers.filter((x) => x.status === 400)) assert.equal(a.body.error_type, 'TokenIsAlreadyActivated');
      const types = (await events(s, coinStream('ETH'))).map((e) => e.type);
      assert.equal(types.filter((t) => t === 'TokenActivationRequested').length, 1);
      assert.equal(types.filter((t) => t === 'TokenActivated').length, 1);
      // Two different tokens at once are both added.
      const both = await Promise.all([s.v2('enable_erc20', erc20Body(s, 'DAI-ERC20')), s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'))]);
      assert.deepEqual(both.map((a) => a.status), [200, 400]);
      assert.deepEqual(await enabledTickers(s), ['DAI-ERC20', 'ETH', 'USDT-ERC20']);
    } finally {
      await s.stop();
    }
  });

  test("the client's platform race: the loser of two enable_eth_with_tokens retries a token with enable_erc20; each coin once", async () => {
    const s = await stack();
    try {
      const [alone, withToken] = await Promise.all([
        s.v2('enable_eth_with_tokens', enableEthParams(s, [])),
        s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20'])),
      ]);
      assert.deepEqual([alone.status, withToken.status].sort(), [200, 400]);
      const loser = alone.status === 400 ? alone : withToken;
      assert.equal(loser.body.error_type, 'PlatformIsAlreadyActivated');
      // The GUI's retry of USDT-ERC20: ETH is active now, so the token alone.
      const retry = await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'));
      if (withToken.status === 200) assert.equal(retry.body.error_type, 'TokenIsAlreadyActivated');
      else assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.deepEqual(await enabledTickers(s), ['ETH', 'USDT-ERC20']);
    } finally {
      await s.stop();
    }
  });

  test("fields the token shares with its platform: the platform's values pass, others are refused naming the field", async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const base = erc20Body(s, 'USDT-ERC20');
      const refused = async (change: Record<string, unknown>, field: RegExp) => {
        const { status, body } = await s.v2('enable_erc20', { ...base, activation_params: { ...base.activation_params, ...change } });
        assert.equal(status, 400, JSON.stringify(body));
        assert.equal(body.error_type, 'InvalidRequest');
        assert.match(body.error, field);
      };
      await refused({ nodes: [{ url: 'http://127.0.0.1:9/other' }] }, /^params\.activation_params\.nodes\[0\]\.url http:\/\/127\.0\.0\.1:9 is not a node of ETH/);
      await refused({ swap_contract_address: '0x8500AFc0bc5214728082163326C2FF0C73f4a871' }, /^params\.activation_params\.swap_contract_address: /);
      await refused({ requires_notarization: true }, /^params\.activation_params\.requires_notarization: true differs from ETH's false/);
      await refused({ priv_key_policy: { type: 'Hardware' } }, /^params\.activation_params\.priv_key_policy: Hardware differs/);
      await refused({ provider: { type: 'Moralis', info: { url: 'https://moralis.example' } } }, /^params\.activation_params\.provider: /);
      const custom = await s.v2('enable_erc20', { ...base, protocol: { type: 'ERC20', protocol_data: { platform: 'ETH', contract_address: SWAP_CONTRACT } } });
      assert.match(custom.body.error, /^params\.protocol: custom tokens are not served/);
      // Nothing was held by the refusals: the client's exact body, then the minimal one, activate.
      assert.deepEqual((await events(s, coinStream('ETH'))).filter((e) => e.type.startsWith('Token')), []);
      assert.equal((await s.v2('enable_erc20', base)).status, 200);
      assert.equal((await s.v2('enable_erc20', { ticker: 'DAI-ERC20', activation_params: {} })).status, 200);
    } finally {
      await s.stop();
    }
  });

  test('disable and replay: a token disabled alone goes and comes back; the log rebuilds the same lists and statuses', async () => {
    const s = await stack();
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'))).status, 200);
      assert.equal((await s.legacy('disable_coin', { coin: 'USDT-ERC20' })).status, 200);
      assert.deepEqual(await enabledTickers(s), ['ETH']);
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'USDT-ERC20'))).status, 200);
      assert.equal((await s.v2('enable_erc20', erc20Body(s, 'DAI-ERC20'))).status, 200);
      // Disabled without force, ETH stays passive for its two tokens, which keep answering.
      assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).body.result.passivized, true);
      assert.equal((await s.legacy('my_balance', { coin: 'DAI-ERC20' })).body.balance, '5.000000000000000001');
      const replayed = new EnabledCoinsProjection();
      let status: CoinStatus | undefined;
      for (const e of await events(s)) {
        replayed.apply(e);
        if (e.metadata.stream === coinStream('ETH') || e.type === 'SessionStarted') status = nextCoinStatus(status, e, { nodeId: 'n', ticker: 'ETH' }) ?? status;
      }
      assert.deepEqual(replayed.list().map((c) => c.ticker).sort(), await enabledTickers(s));
      assert.equal(status?.state, 'passive');
      assert.deepEqual(status?.tokens?.map((t) => t.ticker), ['USDT-ERC20', 'DAI-ERC20']);
      assert.deepEqual(status?.balances, {
        'USDT-ERC20': { spendable: '1234.567891', unspendable: '0' },
        'DAI-ERC20': { spendable: '5.000000000000000001', unspendable: '0' },
        ETH: { spendable: '1.2345', unspendable: '0' },
      });
    } finally {
      await s.stop();
    }
  });
});
