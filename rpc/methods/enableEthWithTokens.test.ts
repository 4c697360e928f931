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
  test('priv_key_policy data belongs to RemoteWallet only (spec 2.2)', () => {
    for (const type of ['ContextPrivKey', 'Hardware']) {
      for (const data of ['abcd', ['abcd'], '']) {
        assert.throws(
          () => command({ priv_key_policy: { type, data } }),
          (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && e.message === `params.priv_key_policy.data: only the RemoteWallet policy takes data (a remote-wallet session topic); remove it for ${type}`,
          `${type} ${JSON.stringify(data)}`,
        );
      }
      assert.equal(command({ priv_key_policy: { type } }).keyPolicy, type);
    }
    assert.equal(command({ priv_key_policy: { type: 'RemoteWallet', data: 'abcd' } }).keyPolicy, 'RemoteWallet');
  });

  test('a null swap contract is the same as one left out', () => {
    const nulls = command({ swap_contract_address: SWAP, fallback_swap_contract: null });
    assert.equal(nulls.swapContractAddress, SWAP);
    assert.equal('fallbackSwapContract' in nulls, false);
    assert.equal('swapContractAddress' in command({ swap_contract_address: null }), false);
  });
});
