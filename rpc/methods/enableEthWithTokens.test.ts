import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isActivationError } from '../../spec/errors.ts';
import { enableEthWithTokensParams } from '../../spec/enableEthWithTokens.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { toPlatformCommand } from './enableEthWithTokens.ts';

const SWAP = '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80';

function command(params: Record<string, unknown>) {
  const decoded = enableEthWithTokensParams.decode({ ticker: 'ETH', nodes: [{ url: 'http://127.0.0.1:8545' }], erc20_tokens_requests: [], ...params });
  assert.ok(decoded.ok, JSON.stringify(decoded));
  return toPlatformCommand(decoded.value, ActivationVia.EnableEthWithTokens);
}

describe('enable_eth_with_tokens params → command', () => {
  test('a session topic belongs to RemoteWallet only (spec 2.2), under any of its three names', () => {
    for (const type of ['ContextPrivKey', 'Hardware', 'Trezor']) {
      for (const [field, policy] of [
        ['data', { data: 'abcd' }],
        ['data', { data: ['abcd'] }],
        ['data', { data: '' }],
        ['params.session_topic', { params: { session_topic: 'abcd' } }],
        ['session_topic', { session_topic: 'abcd' }],
      ] as const) {
        const spoken = type === 'Trezor' ? 'Trezor (Hardware)' : type;
        assert.throws(
          () => command({ priv_key_policy: { type, ...policy } }),
          (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && e.message === `params.priv_key_policy.${field}: only the RemoteWallet (WalletConnect) policy takes a session topic; remove it for ${spoken}`,
          `${type} ${JSON.stringify(policy)}`,
        );
      }
      assert.equal(command({ priv_key_policy: { type } }).keyPolicy, type === 'Trezor' ? 'Hardware' : type);
    }
    assert.equal(command({ priv_key_policy: { type: 'RemoteWallet', data: 'abcd' } }).keyPolicy, 'RemoteWallet');
    assert.equal(command({ priv_key_policy: { type: 'WalletConnect', params: { session_topic: 'abcd' } } }).keyPolicy, 'RemoteWallet');
    assert.equal(command({ priv_key_policy: { type: 'WalletConnect', session_topic: 'abcd' } }).keyPolicy, 'RemoteWallet');
    assert.throws(
      () => command({ priv_key_policy: { type: 'WalletConnect', data: 'abcd', session_topic: 'abcd' } }),
      (e) => isActivationError(e) && e.message === 'params.priv_key_policy.session_topic: the session topic is already given in params.priv_key_policy.data; give it once',
    );
  });

  test('the reference\'s policy names, bare or as an object, are read as the spec\'s; Metamask is BrowserWallet, refused by the name sent', () => {
    for (const [given, neutral] of [['Trezor', 'Hardware'], ['WalletConnect', 'RemoteWallet'], ['ContextPrivKey', 'ContextPrivKey'], ['Hardware', 'Hardware']]) {
      assert.equal(command({ priv_key_policy: given }).keyPolicy, neutral, given);
      assert.equal(command({ priv_key_policy: { type: given } }).keyPolicy, neutral, given);
    }
    assert.equal(command({}).keyPolicy, 'ContextPrivKey');
    for (const policy of ['Metamask', { type: 'Metamask' }]) {
      assert.throws(() => command({ priv_key_policy: policy }), (e) => isActivationError(e) && e.message === 'params.priv_key_policy: Metamask (BrowserWallet) is only available on WebAssembly builds');
    }
    assert.throws(() => command({ rpc_mode: 'Metamask' }), (e) => isActivationError(e) && /^params\.rpc_mode: Metamask \(BrowserWallet\) is only available/.test(e.message));
    assert.equal(enableEthWithTokensParams.check({ ticker: 'ETH', nodes: [], erc20_tokens_requests: [], priv_key_policy: 'Ledger' }), false);
  });

  test('the proxy flag under gateway_proxy, komodo_proxy or gui_auth; names that disagree are refused naming both', () => {
    const flags = (node: Record<string, unknown>) => command({ nodes: [{ url: 'http://127.0.0.1:8545', ...node }] }).nodes[0]!.gatewayProxy;
    assert.equal(flags({}), undefined);
    for (const name of ['gateway_proxy', 'komodo_proxy', 'gui_auth']) {
      assert.equal(flags({ [name]: true }), true, name);
      assert.equal(flags({ [name]: false }), false, name);
    }
    assert.equal(flags({ gui_auth: true, komodo_proxy: true }), true, 'the GUI writes both');
    assert.throws(
      () => flags({ gui_auth: false, komodo_proxy: true }),
      (e) => isActivationError(e) && e.message === 'params.nodes[0].gui_auth (false) disagrees with params.nodes[0].komodo_proxy (true): they name the same gateway-proxy flag; give one value',
    );
    const nft = (info: Record<string, unknown>) => command({ nft_req: { type: 'Moralis', info: { url: 'http://127.0.0.1:1', ...info } } }).nft;
    assert.deepEqual(nft({ komodo_proxy: true }), { url: 'http://127.0.0.1:1', gatewayProxy: true });
    assert.deepEqual(nft({}), { url: 'http://127.0.0.1:1', gatewayProxy: false });
  });

  test('gas station decimals and policy without a station: accepted at their defaults, refused otherwise naming the field', () => {
    assert.equal('gasStation' in command({ gas_station_decimals: 8, gas_station_policy: { policy: 'MeanAverageFast' } }), false);
    assert.equal('gasStation' in command({ gas_station_policy: {} }), false, 'the policy\'s own default fills it in');
    assert.throws(() => command({ gas_station_decimals: 8, gas_station_policy: { policy: 'Average' } }), (e) => isActivationError(e) && /^params\.gas_station_policy \{"policy":"Average"\}: given without/.test(e.message));
    assert.throws(() => command({ gas_station_decimals: 18 }), (e) => isActivationError(e) && /^params\.gas_station_decimals 18: given without/.test(e.message));
  });

  test('a null swap contract is the same as one left out', () => {
    const nulls = command({ swap_contract_address: SWAP, fallback_swap_contract: null });
    assert.equal(nulls.swapContractAddress, SWAP);
    assert.equal('fallbackSwapContract' in nulls, false);
    assert.equal('swapContractAddress' in command({ swap_contract_address: null }), false);
  });
});
