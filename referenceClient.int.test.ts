/**
 * The reference's own GUI client, replayed (docs/compatibility.md §19): its exact request bodies,
 * in its order and concurrency, against devnet peers, and every field it parses from each answer
 * checked the way it parses it (its error test included).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from './devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from './devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from './devnet/electrum/electrumServer.ts';
import { realCoinEntries } from './devnet/data/index.ts';
import { createIguanaKeyProvider } from './infra/keys/index.ts';
import { FakeHardwareWallet } from './devnet/hardware/fakeHardwareWallet.ts';
import { ReferenceClient, isSdkError } from './devnet/referenceClient/sdkClient.ts';
import {
  enableErc20Params,
  ethWithTokensParams,
  qtumInitParams,
  trezorEthInitParams,
  utxoInitParams,
  type EvmPlatformConfig,
  type UtxoConfig,
} from './devnet/referenceClient/clientBodies.ts';
import { loginStorm, type LoginAsset } from './devnet/referenceClient/loginStorm.ts';
import { pollTask, statusLabel } from './devnet/referenceClient/taskPolling.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, TEST_PASSPHRASE, TEST_PASSWORD, startStack, startTestDevnet, type Stack } from './devnet/testing/stack.ts';
import { evmToTronBase58 } from './infra/keys/tronAddress.ts';
import type { EvmDevnet } from './devnet/index.ts';

const TOKENS = [
  { symbol: 'USDT', decimals: 6, amount: 25_000_000_001n },
  { symbol: 'DAI', decimals: 18, amount: 7n * 10n ** 18n + 3n },
];
const NATIVE = 1_234_500_000_000_000_001n;
const WALLET = 'My Wallet';

/** What the wallet holds on the regtest chain (Electrum finds it by script, whatever the coin's address parameters). */
const UTXO_FUNDED = 150_000_000n;

let devnet: EvmDevnet;
let litecoind: Litecoind;
let electrum: ElectrumServer;
/** The real coins file's LTC, KMD and QTUM entries. */
let utxoCoins: unknown[];
before(async () => {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'LTC' });
  const hash160 = Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex');
  [devnet, litecoind] = await Promise.all([startTestDevnet({ nativeWei: NATIVE, tokens: TOKENS }), startLitecoind()]);
  await litecoind.fund(p2pkhAddress(hash160), UTXO_FUNDED, 1);
  electrum = await startElectrumServer({ litecoind, evm: devnet, transports: ['TCP'] });
  utxoCoins = await realCoinEntries(['LTC', 'KMD', 'QTUM']);
});
after(async () => {
  await electrum?.stop();
  await Promise.all([devnet?.stop(), litecoind?.stop()]);
});

const stack = (extra: Parameters<typeof startStack>[0] = {}) => startStack({ devnet, tron: true, extraCoins: utxoCoins, config: { wallet_name: WALLET }, ...extra });
/** A UTXO coin as the client's config gives it, on the devnet Electrum server. */
const utxo = (ticker: string, passthrough: Record<string, number>): UtxoConfig => ({
  ticker,
  servers: [{ url: electrum.tcp!, protocol: 'TCP', disable_cert_verification: false }],
  requiredConfirmations: 2,
  passthrough,
});
const LTC = () => utxo('LTC', { pubtype: 48, p2shtype: 50, wiftype: 176 });
const KMD = () => utxo('KMD', { pubtype: 60, p2shtype: 85, wiftype: 188, txversion: 4, overwintered: 1 });
const eth = (s: Stack): EvmPlatformConfig => ({
  ticker: 'ETH',
  nodes: [{ url: s.devnet.url, gui_auth: false }],
  swapContract: SWAP_CONTRACT,
  fallbackSwapContract: SWAP_CONTRACT,
  requiredConfirmations: 3,
});
const trx = (s: Stack): EvmPlatformConfig => ({ ticker: 'TRX', nodes: [{ url: s.tron!.url, gui_auth: false }], requiredConfirmations: 1, mm2: 1 });

/** What the SDK requires of a balance object: strings under exactly one alias of each. */
function assertBalance(balance: any, spendable: string, where: string): void {
  assert.deepEqual(Object.keys(balance).sort(), ['spendable', 'unspendable'], where);
  assert.equal(typeof balance.spendable, 'string', where);
  assert.equal(balance.spendable, spendable, where);
  assert.equal(balance.unspendable, '0', where);
}

/** What the SDK parses of an Iguana `enable_eth_with_tokens` answer: mmrpc, current_block, both address maps. */
function assertIguanaActivation(body: any, platform: string, address: string, native: string, tokens: Record<string, string>): void {
  assert.equal(isSdkError(body), false, JSON.stringify(body));
  assert.equal(body.mmrpc, '2.0');
  assert.ok(!('id' in body) || body.id === null);
  assert.ok(Number.isInteger(body.result.current_block) && body.result.current_block > 0);
  assertBalance(body.result.eth_addresses_infos[address].balances, native, `${platform} balance`);
  const balances = body.result.erc20_addresses_infos[address].balances;
  assert.deepEqual(Object.keys(balances).sort(), Object.keys(tokens).sort());
  for (const [ticker, spendable] of Object.entries(tokens)) assertBalance(balances[ticker], spendable, ticker);
}

describe('the reference client, replayed', () => {
  test('login probes (§0, §8.1): legacy version, get_wallet_names with params null and no id', async () => {
    const s = await stack();
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      const version = await client.legacy('version');
      assert.equal(version.status, 200);
      assert.equal(typeof version.body.result, 'string');
      assert.equal(typeof version.body.datetime, 'string');
      const names = await client.v2('get_wallet_names', null);
      assert.equal(isSdkError(names.body), false, JSON.stringify(names.body));
      assert.deepEqual(names.body.result, { wallet_names: [WALLET], activated_wallet: WALLET });
      const enabled = await client.v2('get_enabled_coins', null);
      assert.deepEqual(enabled.body.result.coins, []);
    } finally {
      await s.stop();
    }
  });

  test('ETH + ERC20, a token after its platform, TRX + TRC20 (§1–§3, §6, §7): every field the client parses', async () => {
    const s = await stack();
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      const ethAnswer = await client.v2('enable_eth_with_tokens', ethWithTokensParams(eth(s), ['USDT-ERC20']));
      assertIguanaActivation(ethAnswer.body, 'ETH', TEST_ADDRESS, '1.234500000000000001', { 'USDT-ERC20': '25000.000001' });

      const erc20 = await client.v2('enable_erc20', enableErc20Params('DAI-ERC20', eth(s)));
      assert.equal(isSdkError(erc20.body), false, JSON.stringify(erc20.body));
      assert.equal(erc20.body.mmrpc, '2.0');
      const { balances, platform_coin, token_contract_address, required_confirmations } = erc20.body.result;
      assert.equal(platform_coin, 'ETH');
      assert.equal(token_contract_address.toLowerCase(), devnet.tokens[1]!.address.toLowerCase());
      assert.ok(Number.isInteger(required_confirmations));
      assertBalance(balances[TEST_ADDRESS], '7.000000000000000003', 'DAI-ERC20 balance');

      const tronAddress = evmToTronBase58(TEST_ADDRESS);
      const trxAnswer = await client.v2('enable_eth_with_tokens', ethWithTokensParams(trx(s), ['USDT-TRC20']));
      assert.equal(isSdkError(trxAnswer.body), false, JSON.stringify(trxAnswer.body));
      assertBalance(trxAnswer.body.result.erc20_addresses_infos[tronAddress].balances['USDT-TRC20'], '25000.000001', 'USDT-TRC20');

      const enabled = await client.v2('get_enabled_coins', null);
      assert.deepEqual((enabled.body.result.coins as { ticker: string }[]).map((c) => c.ticker).sort(), ['DAI-ERC20', 'ETH', 'TRX', 'USDT-ERC20', 'USDT-TRC20']);
      const balance = await client.legacy('my_balance', { coin: 'DAI-ERC20' });
      assert.deepEqual(
        { address: balance.body.address, coin: balance.body.coin, balance: balance.body.balance, unspendable_balance: balance.body.unspendable_balance },
        { address: TEST_ADDRESS, coin: 'DAI-ERC20', balance: '7.000000000000000003', unspendable_balance: '0' },
      );
      const disabled = await client.legacy('disable_coin', { coin: 'USDT-ERC20' });
      assert.equal(isSdkError(disabled.body), false, JSON.stringify(disabled.body));
      // An activation the client retries after a race: the already-activated error, in the words it matches.
      const again = await client.v2('enable_eth_with_tokens', ethWithTokensParams(eth(s), []));
      assert.equal(isSdkError(again.body), true);
      assert.match(JSON.stringify(again.body), /PlatformIsAlreadyActivated/);
      const token = await client.v2('enable_erc20', enableErc20Params('DAI-ERC20', eth(s)));
      assert.match(JSON.stringify(token.body), /activated already/);
    } finally {
      await s.stop();
    }
  });

  test('Trezor (§4): task::enable_eth::init with {"type":"Trezor"}, status polled with forget_if_finished false until Ok', async () => {
    const fake = new FakeHardwareWallet({ pin: '1234' });
    const s = await stack({ hardware: async () => fake, config: { wire_names: 'reference' } });
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      const init = await client.v2('task::enable_eth::init', trezorEthInitParams(eth(s), ['USDT-ERC20']));
      assert.equal(isSdkError(init.body), false, JSON.stringify(init.body));
      assert.ok(Number.isInteger(init.body.result.task_id));
      const answers = await pollTask(client, 'enable_eth', init.body.result.task_id, {
        intervalMs: 20,
        maxPolls: 200,
        async onStatus(body) {
          if (body.result.details === 'WaitingForTrezorToConnect') fake.connect(); // the user plugs the device in
          if (body.result.status === 'UserActionRequired' && body.result.details === 'EnterTrezorPin') {
            // The SDK has no enable_eth user_action; the reference's docs and tests send this one.
            const pin = await client.v2('task::enable_eth::user_action', { task_id: init.body.result.task_id, user_action: { action_type: 'TrezorPin', pin: '1234' } });
            assert.equal(isSdkError(pin.body), false, JSON.stringify(pin.body));
          }
        },
      });
      for (const body of answers) {
        assert.equal(isSdkError(body), false, JSON.stringify(body));
        assert.ok('details' in body.result, 'the client requires the details key');
      }
      const seen = new Set(answers.map(statusLabel));
      assert.ok(seen.has('InProgress WaitingForTrezorToConnect'), [...seen].join(', '));
      assert.ok(seen.has('UserActionRequired EnterTrezorPin'), [...seen].join(', '));
      assert.ok(seen.has('Ok'), [...seen].join(', '));
    } finally {
      await s.stop();
    }
  });

  test('UTXO and QTUM (§5): task::enable_utxo for LTC and KMD, task::enable_qtum for QTUM, polled as the client polls', async () => {
    const s = await stack();
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      for (const [kind, params, forget] of [
        ['enable_utxo', utxoInitParams(LTC()), false],
        ['enable_utxo', utxoInitParams(KMD()), false],
        ['enable_qtum', qtumInitParams(utxo('QTUM', {})), undefined], // the client leaves QTUM's forget_if_finished at its default
      ] as const) {
        const init = await client.v2(`task::${kind}::init`, params);
        assert.equal(isSdkError(init.body), false, JSON.stringify(init.body));
        assert.equal(init.body.mmrpc, '2.0');
        assert.ok(Number.isInteger(init.body.result.task_id));
        const answers = await pollTask(client, kind, init.body.result.task_id, { forget, intervalMs: 20, maxPolls: 500 });
        for (const body of answers) {
          assert.equal(isSdkError(body), false, JSON.stringify(body));
          assert.ok(typeof body.result.status === 'string' && 'details' in body.result, JSON.stringify(body));
        }
        const last = answers.at(-1);
        assert.equal(last.result.status, 'Ok', `${params.ticker}: ${JSON.stringify(last)}`);
      }
      const enabled = ((await client.v2('get_enabled_coins', null)).body.result.coins as { ticker: string }[]).map((c) => c.ticker).sort();
      assert.deepEqual(enabled, ['KMD', 'LTC', 'QTUM']);
      const ltc = await client.legacy('my_balance', { coin: 'LTC' });
      assert.equal(ltc.body.balance, '1.5');
      assert.equal(ltc.body.coin, 'LTC');
    } finally {
      await s.stop();
    }
  });

  test('a Trezor UTXO wallet (§5, §8.5): "Trezor" and "scan" through task::enable_utxo, the device connected and its PIN entered', async () => {
    const fake = new FakeHardwareWallet({ pin: '1234' });
    const s = await stack({ hardware: async () => fake, config: { wire_names: 'reference' } });
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      const init = await client.v2('task::enable_utxo::init', utxoInitParams(LTC(), true));
      assert.equal(isSdkError(init.body), false, JSON.stringify(init.body));
      const answers = await pollTask(client, 'enable_utxo', init.body.result.task_id, {
        intervalMs: 20,
        maxPolls: 500,
        async onStatus(body) {
          if (body.result.details === 'WaitingForTrezorToConnect') fake.connect();
          if (body.result.details === 'EnterTrezorPin') {
            const pin = await client.v2('task::enable_utxo::user_action', { task_id: init.body.result.task_id, user_action: { action_type: 'TrezorPin', pin: '1234' } });
            assert.equal(isSdkError(pin.body), false, JSON.stringify(pin.body));
          }
        },
      });
      for (const body of answers) assert.equal(isSdkError(body), false, JSON.stringify(body));
      const seen = [...new Set(answers.map(statusLabel))];
      const last = answers.at(-1);
      assert.equal(last.result.status, 'Ok', `${seen.join(' → ')}: ${JSON.stringify(last)}`);
      assert.ok(seen.includes('InProgress WaitingForTrezorToConnect') && seen.includes('UserActionRequired EnterTrezorPin'), seen.join(' → '));
    } finally {
      await s.stop();
    }
  });

  test('login storm (§8): ETH, USDT-ERC20, TRX, USDT-TRC20, LTC, KMD at once with the GUI retry; every coin active after at most one retry, listed once, activated once', async () => {
    const s = await stack();
    try {
      const client = new ReferenceClient(s.service.url, TEST_PASSWORD);
      const assets: LoginAsset[] = [
        { kind: 'platform', ticker: 'ETH', platform: eth(s) },
        { kind: 'token', ticker: 'USDT-ERC20', platform: eth(s) },
        { kind: 'platform', ticker: 'TRX', platform: trx(s) },
        { kind: 'token', ticker: 'USDT-TRC20', platform: trx(s) },
        { kind: 'utxo', ticker: 'LTC', coin: LTC() },
        { kind: 'utxo', ticker: 'KMD', coin: KMD() },
      ];
      const outcomes = await loginStorm(client, assets);
      for (const outcome of outcomes) {
        assert.ok(outcome.active, `${outcome.ticker} never became active: ${JSON.stringify(client.calls.filter((c) => c.ticker === outcome.ticker && c.failed).map((c) => c.body))}`);
        assert.ok(outcome.tries <= 2, `${outcome.ticker} took ${outcome.tries} tries`);
      }
      const listed = ((await client.v2('get_enabled_coins', null)).body.result.coins as { ticker: string }[]).map((c) => c.ticker);
      assert.deepEqual([...listed].sort(), ['ETH', 'KMD', 'LTC', 'TRX', 'USDT-ERC20', 'USDT-TRC20']);
      // Every race was lost at once with the already-activated answer, never by a second activation.
      const activated = new Map<string, number>();
      for await (const event of s.service.log.read()) {
        const tickers = event.type === 'CoinActivated' ? [event.data.ticker, ...(event.data.tokens ?? []).map((t) => t.ticker)] : event.type === 'TokenActivated' ? [event.data.ticker] : [];
        for (const ticker of tickers) activated.set(ticker, (activated.get(ticker) ?? 0) + 1);
      }
      assert.deepEqual(Object.fromEntries([...activated].sort()), { ETH: 1, KMD: 1, LTC: 1, TRX: 1, 'USDT-ERC20': 1, 'USDT-TRC20': 1 }, 'one activation per coin');
      for (const call of client.calls.filter((c) => c.failed)) {
        assert.match(JSON.stringify(call.body), /PlatformIsAlreadyActivated|activated already|CoinIsAlreadyActivated/, `a failure other than losing a race: ${JSON.stringify(call.body)}`);
      }
    } finally {
      await s.stop();
    }
  });
});
