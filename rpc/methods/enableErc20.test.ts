import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyPolicy } from '../../machines/activation.types.ts';
import { ActivationError } from '../../spec/errors.ts';
import { toTokenCommand } from './enableErc20.ts';

const URL = 'https://node.example';
const command = (activation_params: Record<string, unknown>) => toTokenCommand({ ticker: 'USDT-ERC20', activation_params } as never);

describe('enable_erc20 params → command', () => {
  test('Given the reference\'s names, When read, Then Trezor is the Hardware policy and gui_auth / komodo_proxy the gateway-proxy flag', () => {
    assert.equal(command({ priv_key_policy: { type: 'Trezor' } }).keyPolicy, KeyPolicy.Hardware);
    assert.equal(command({ priv_key_policy: 'Trezor' }).keyPolicy, KeyPolicy.Hardware);
    assert.equal(command({ priv_key_policy: { type: 'ContextPrivKey' } }).keyPolicy, KeyPolicy.ContextPrivKey);
    assert.deepEqual(command({ nodes: [{ url: URL, gui_auth: true }] }).nodes, [{ url: URL, gatewayProxy: true }]);
    assert.deepEqual(command({ nodes: [{ url: URL, komodo_proxy: false }] }).nodes, [{ url: URL, gatewayProxy: false }]);
    assert.deepEqual(command({ nodes: [{ url: URL }] }).nodes, [{ url: URL }]);
  });

  test('Given names that disagree, or a wallet policy a token cannot take, When read, Then it is refused naming the field', () => {
    assert.throws(() => command({ nodes: [{ url: URL, gui_auth: true, komodo_proxy: false }] }), (e: unknown) => e instanceof ActivationError && /nodes\[0\]\.komodo_proxy/.test(e.message));
    assert.throws(() => command({ priv_key_policy: { type: 'Metamask' } }), (e: unknown) => e instanceof ActivationError && /Metamask \(BrowserWallet\)/.test(e.message));
    assert.throws(() => command({ priv_key_policy: { type: 'ContextPrivKey', session_topic: 'ab' } }), (e: unknown) => e instanceof ActivationError && /session_topic/.test(e.message));
  });
});
