import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { enableEthWithTokensParams } from './enableEthWithTokens.ts';
import { enableEthTaskInitParams } from './enableEthTask.ts';

const base = { ticker: 'ETH', nodes: [{ url: 'http://127.0.0.1:8545' }], erc20_tokens_requests: [] };

describe('enable_eth_with_tokens / task::enable_eth::init params (spec 4.1, 4.5)', () => {
  test('the swap contracts may be left out or null (their rule is the family\'s)', () => {
    for (const schema of [enableEthWithTokensParams, enableEthTaskInitParams]) {
      for (const contracts of [{}, { swap_contract_address: '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80' }, { fallback_swap_contract: null }, { swap_contract_address: null, fallback_swap_contract: null }]) {
        assert.ok(schema.decode({ ...base, ...contracts }).ok, JSON.stringify(contracts));
      }
      assert.deepEqual(schema.decode({ ...base, fallback_swap_contract: 1 }), { ok: false, problem: { field: 'fallback_swap_contract', message: 'Expected string or null' } });
    }
  });

  test('a union error names the field and what was expected, not just "union value"', () => {
    assert.deepEqual(enableEthWithTokensParams.decode({ ...base, priv_key_policy: { type: 'Nope' } }), {
      ok: false,
      problem: { field: 'priv_key_policy.type', message: "Expected 'ContextPrivKey' or 'RemoteWallet' or 'WalletConnect' or 'BrowserWallet' or 'Metamask' or 'Hardware' or 'Trezor'" },
    });
    assert.deepEqual(enableEthWithTokensParams.decode({ ...base, path_to_address: { chain: 'Up' } }), {
      ok: false,
      problem: { field: 'path_to_address.chain', message: "Expected 'External' or 'Internal' or integer" },
    });
  });
});
