import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deployTestNfts, startEvmDevnet, startGatewayProxy, startNftIndexer, type EvmDevnet, type GatewayProxy, type TestNfts } from '../../devnet/index.ts';
import { FakeHardwareWallet } from '../../devnet/hardware/fakeHardwareWallet.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, TEST_ADDRESS, TEST_PASSWORD, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { describeEvents, enabledTickers, startTask, taskEvents, taskStatus, untilFinished, untilStatus } from '../../devnet/testing/tasks.ts';

/**
 * The reference's names through the RPC (docs/compatibility.md §17): what its clients send
 * (`Trezor`, `TrezorPin`, `gui_auth`, `komodo_proxy`, `Moralis`, fields at their defaults) works
 * against devnet peers, and MM2.json `wire_names: "reference"` writes the statuses they match.
 */

const PIN = '95827146';
const DEVICE_ADDRESS = new FakeHardwareWallet().address;
const BOB_SEED = 'dummy-value-bob';
/** The reference's peer id for the seed node with passphrase "dummy-value-bob". */
const BOB_PEER_ID = '12D3KooWEtuv7kmgGCC7oAQ31hB7AR5KkhT3eEWB2bP2roo3M7rY';
const TIMEOUTS = { connectMs: 300_000, pinMs: 300_000, confirmMs: 300_000 };

let devnet: EvmDevnet;
let proxy: GatewayProxy;
let nfts: TestNfts;
before(async () => {
  devnet = await startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    fund: [{ address: TEST_ADDRESS, wei: 10n ** 18n }, { address: DEVICE_ADDRESS, wei: 3n * 10n ** 18n }],
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: DEVICE_ADDRESS, amount: 7_000_000n }] }],
  });
  proxy = await startGatewayProxy({ target: devnet.url });
  nfts = await deployTestNfts(devnet.request, devnet.deployer);
});
after(async () => {
  await proxy.stop();
  await devnet.stop();
});

/** The SDK's `task::enable_eth::init` body for a Trezor wallet (its flat params, no get_balances). */
const sdkTrezorInit = (s: Stack, extra: Record<string, unknown> = {}) => ({
  ticker: 'ETH',
  required_confirmations: 3,
  requires_notarization: false,
  priv_key_policy: { type: 'Trezor' },
  nodes: [{ url: s.devnet.url, gui_auth: false }],
  swap_contract_address: SWAP_CONTRACT,
  fallback_swap_contract: SWAP_CONTRACT,
  erc20_tokens_requests: [{ ticker: 'USDT-ERC20', required_confirmations: 3 }],
  tx_history: false,
  ...extra,
});

describe('the reference\'s names on input and output', () => {
  test('Trezor + TrezorPin activate a hardware wallet; with wire_names "reference" status and /event-stream say WaitingForTrezorToConnect, EnterTrezorPin; the log stays neutral', async () => {
    const fake = new FakeHardwareWallet({ pin: PIN });
    const s = await startStack({ devnet, hardware: async () => fake, taskTimeouts: TIMEOUTS, config: { wire_names: 'reference' } });
    const gui = await SseClient.connect(`${s.service.url}/event-stream?id=5`, { headers: { authorization: `Bearer ${TEST_PASSWORD}` } });
    try {
      const id = await startTask(s, sdkTrezorInit(s, { client_id: 5 }));
      await untilStatus(s, id, 'InProgress', 'WaitingForTrezorToConnect');
      fake.connect();
      await untilStatus(s, id, 'UserActionRequired', 'EnterTrezorPin');

      const passphrase = await s.v2('task::enable_eth::user_action', { task_id: id, user_action: { action_type: 'TrezorPassphrase', passphrase: 'correct horse' } });
      assert.deepEqual([passphrase.status, passphrase.body.error_type], [400, 'InvalidRequest']);
      assert.match(passphrase.body.error, /^params\.user_action\.action_type: TrezorPassphrase answers a device's passphrase request, and this service's hardware flow has no passphrase step/);
      assert.doesNotMatch(JSON.stringify(passphrase.body), /correct horse/);
      const noPin = await s.v2('task::enable_eth::user_action', { task_id: id, user_action: { action_type: 'TrezorPin' } });
      assert.deepEqual([noPin.status, noPin.body.error_data], [400, 'params.user_action.pin: required with TrezorPin']);
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'EnterTrezorPin', 'the task is untouched');
      assert.equal(fake.pinsChecked, 0);

      const entered = await s.v2('task::enable_eth::user_action', { task_id: id, user_action: { action_type: 'TrezorPin', pin: PIN } });
      assert.deepEqual(entered.body, { mmrpc: '2.0', result: 'success', id: null });
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.equal(result.details.wallet_balance.accounts[0].addresses[0].address, DEVICE_ADDRESS);
      assert.deepEqual(result.details.wallet_balance.accounts[0].total_balance, {
        ETH: { spendable: '3', unspendable: '0' },
        'USDT-ERC20': { spendable: '7', unspendable: '0' },
      });
      assert.deepEqual(await enabledTickers(s), ['ETH', 'USDT-ERC20']);

      await gui.waitFor((f) => f.event === undefined && JSON.parse(f.data).message.status === 'Ok');
      const pushed = gui.frames.filter((f) => f.event === undefined).map((f) => JSON.parse(f.data).message.details).filter((d) => typeof d === 'string');
      assert.ok(pushed.includes('WaitingForTrezorToConnect') && pushed.includes('EnterTrezorPin'), pushed.join());
      assert.ok(!pushed.some((d) => /Hardware/.test(d)), pushed.join());

      const events = describeEvents(await taskEvents(s, id));
      assert.ok(events.includes('TaskProgressed:InProgress/WaitingForHardwareToConnect'), events.join());
      assert.ok(events.includes('TaskProgressed:UserActionRequired/EnterHardwarePin'), events.join());
      assert.doesNotMatch(JSON.stringify(await taskEvents(s, id)), /Trezor|correct horse/);
    } finally {
      gui.close();
      await s.stop();
    }
  });

  test('by default the statuses keep the spec\'s names; a bare "Trezor" policy is the same policy', async () => {
    const fake = new FakeHardwareWallet();
    const s = await startStack({ devnet, hardware: async () => fake, taskTimeouts: TIMEOUTS });
    try {
      const id = await startTask(s, sdkTrezorInit(s, { priv_key_policy: 'Trezor', erc20_tokens_requests: [] }));
      await untilStatus(s, id, 'InProgress', 'WaitingForHardwareToConnect');
      fake.connect();
      const { result, seen } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.ok(!seen.some((label) => /Trezor/.test(label)), seen.join());
    } finally {
      await s.stop();
    }
  });

  test('gui_auth and komodo_proxy nodes get signed requests as gateway_proxy ones do; names that disagree are refused before any call', async () => {
    const s = await startStack({ devnet, config: { passphrase: BOB_SEED } });
    const activate = async (node: Record<string, unknown>) => {
      const before = proxy.stats();
      const answer = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), nodes: [{ url: proxy.url, ...node }] });
      const after = proxy.stats();
      return { answer, accepted: after.accepted - before.accepted, refused: after.refused.slice(before.refused.length), signers: after.signers };
    };
    try {
      for (const node of [{ gui_auth: true }, { komodo_proxy: true }, { gui_auth: true, komodo_proxy: true }]) {
        const seen = await activate(node);
        assert.equal(seen.answer.status, 200, `${JSON.stringify(node)}: ${JSON.stringify(seen.answer.body)}`);
        assert.ok(seen.accepted > 0, JSON.stringify(node));
        assert.deepEqual(seen.refused, [], JSON.stringify(node));
        assert.deepEqual(seen.signers, [BOB_PEER_ID]);
        assert.equal((await s.legacy('disable_coin', { coin: 'ETH' })).status, 200);
      }
      const disagree = await activate({ gui_auth: false, komodo_proxy: true });
      assert.deepEqual([disagree.answer.status, disagree.answer.body.error_type], [400, 'InvalidRequest']);
      assert.equal(disagree.answer.body.error_data, 'params.nodes[0].gui_auth (false) disagrees with params.nodes[0].komodo_proxy (true): they name the same gateway-proxy flag; give one value');
      assert.deepEqual([disagree.accepted, disagree.refused], [0, []], 'no call made');
      const unsigned = await activate({ gui_auth: false });
      assert.equal(unsigned.answer.status, 502, 'gui_auth false: unsigned, and the proxy refuses it');
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
    }
  });

  test('a Moralis provider with info.komodo_proxy is an NftIndexer whose page requests are signed', async () => {
    const guarded = await startNftIndexer({ evm: devnet, requireSignature: true });
    const s = await startStack({ devnet, config: { passphrase: BOB_SEED } });
    try {
      const moralis = { type: 'Moralis', info: { url: guarded.url, komodo_proxy: true } };
      const first = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: moralis }));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const bob = Object.keys(first.body.result.eth_addresses_infos)[0]!;
      await nfts.mint721(bob, 77n);
      await s.legacy('disable_coin', { coin: 'ETH' });
      const second = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], { nft_req: moralis }));
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.deepEqual(Object.keys(second.body.result.nfts_infos), [`${nfts.erc721.toLowerCase()},77`]);
      assert.deepEqual(guarded.signatures(), { refused: [], signers: [BOB_PEER_ID] });
      assert.deepEqual((await s.v2('coin_status', { ticker: 'ETH' })).body.result.nft_indexer, { origin: new URL(guarded.url).origin, gateway_proxy: true });
    } finally {
      await s.stop();
      await guarded.stop();
    }
  });
});

describe('fields at their defaults where they have no effect', () => {
  test('accepted at the default, as the reference accepts them; another value refused naming the field, nothing registered', async () => {
    const s = await startStack({ devnet });
    try {
      const defaults = {
        gas_station_decimals: 8,
        gas_station_policy: { policy: 'MeanAverageFast' },
        gap_limit: 20,
        scan_policy: 'scan_if_new_wallet',
        min_addresses_number: 1,
        tx_history: false,
        requires_notarization: false,
        required_confirmations: 3,
        rpc_mode: 'Default',
        get_balances: true,
      };
      const v2 = await s.v2('enable_eth_with_tokens', { ...enableEthParams(s, []), ...defaults, nodes: [{ url: s.devnet.url, gui_auth: false }] });
      assert.equal(v2.status, 200, JSON.stringify(v2.body));
      assert.equal('gas_station' in (await s.v2('coin_status', { ticker: 'ETH' })).body.result, false, 'no station: nothing kept');
      await s.legacy('disable_coin', { coin: 'ETH' });
      const legacy = await s.legacy('enable', { coin: 'ETH', urls: [s.devnet.url], swap_contract_address: SWAP_CONTRACT, gas_station_decimals: 8, gas_station_policy: { policy: 'MeanAverageFast' } });
      assert.equal(legacy.body.result, 'success', JSON.stringify(legacy.body));
      await s.legacy('disable_coin', { coin: 'ETH' });

      const refused: [Record<string, unknown>, number, string, RegExp][] = [
        [{ gas_station_decimals: 9 }, 400, 'InvalidRequest', /^params\.gas_station_decimals 9: given without params\.gas_station_url, so it would have no effect; leave it out \(or give its default, 8\)/],
        [{ gas_station_policy: { policy: 'Average' } }, 400, 'InvalidRequest', /^params\.gas_station_policy \{"policy":"Average"\}: /],
        [{ gap_limit: 5 }, 500, 'UnexpectedDerivationMethod', /^params\.gap_limit 5: an Iguana key \(enable_hd false\) has one address per coin \(ETH\)/],
        [{ scan_policy: 'scan' }, 500, 'UnexpectedDerivationMethod', /^params\.scan_policy "scan": /],
      ];
      for (const [fields, status, type, message] of refused) {
        const answer = await s.v2('enable_eth_with_tokens', enableEthParams(s, [], fields));
        assert.deepEqual([answer.status, answer.body.error_type], [status, type], JSON.stringify(fields));
        assert.match(answer.body.error_data ?? answer.body.error, message);
      }
      const legacyRefused = await s.legacy('enable', { coin: 'ETH', urls: [s.devnet.url], swap_contract_address: SWAP_CONTRACT, gas_station_decimals: 6 });
      assert.match(legacyRefused.body.error, /^gas_station_decimals 6: given without gas_station_url/);
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
    }
  });
});
