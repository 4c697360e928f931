/**
 * Node answers read as the reference reads them: the unit tests of `mm2src/coins/eth/tron/api.rs`
 * (cited by name) on the same JSON.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TronNodeError } from '../tronHttp.ts';
import { accountExists, accountResources, chainPrices, taposBlock, transferEnergy } from './tronNodeAnswers.ts';

const PARAMS = [
  { key: 'getTransactionFee', value: 1000 },
  { key: 'getEnergyFee', value: 100 },
  { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 },
  { key: 'getCreateAccountFee', value: 100_000 },
  { key: 'getCreateNewAccountBandwidthRate', value: 1 },
];
const without = (...keys: string[]) => PARAMS.filter((p) => !keys.includes(p.key));

describe('api.rs vectors', () => {
  test('parse_getnowblock_and_tapos_derivation: Nile block 54242114', () => {
    const block = taposBlock({ blockID: '00000000033bab42567444cc8af3dbaeb5cf26b514b7e90b9a23424ea8392641', block_header: { raw_data: { number: 54242114, timestamp: 1738799040000 } } });
    assert.equal(block.number, 54_242_114n);
    assert.equal(block.timestamp, 1_738_799_040_000n);
    assert.equal(Buffer.from(block.id.subarray(0, 8)).readBigUInt64BE(), 54_242_114n);
  });
  test('parse_getnowblock_rejects_invalid_block_id_hex / _wrong_length_block_id (and a missing timestamp)', () => {
    const header = { block_header: { raw_data: { number: 1, timestamp: 1 } } };
    assert.throws(() => taposBlock({ blockID: `zz${'0'.repeat(62)}`, ...header }), TronNodeError);
    assert.throws(() => taposBlock({ blockID: '00000000033bab42e37d025dc14e9ebc26e8f6cb6b6e26e08d2bf2db29c3b4', ...header }), TronNodeError);
    assert.throws(() => taposBlock({ blockID: '0'.repeat(64), block_header: { raw_data: { number: 1 } } }), TronNodeError);
  });
  test('parse_chain_prices_accepts_valid_parameters', () => {
    assert.deepEqual(chainPrices({ chainParameter: PARAMS }), { bandwidthPriceSun: 1000n, energyPriceSun: 100n, createNewAccountFeeSun: 1_000_000n, createAccountBandwidthFeeSun: 100_000n, createNewAccountBandwidthRate: 1n });
  });
  test('parse_chain_prices_rejects_zero_values_as_retryable_bad_response (and a missing price)', () => {
    assert.throws(() => chainPrices({ chainParameter: [{ key: 'getTransactionFee', value: 0 }, ...without('getTransactionFee')] }), TronNodeError);
    assert.throws(() => chainPrices({ chainParameter: without('getEnergyFee') }), TronNodeError);
  });
  test('parse_chain_prices_allows_zero_account_creation_fees / _defaults_missing_account_creation_params_to_zero / _defaults_missing_bandwidth_rate_to_one', () => {
    const zero = chainPrices({ chainParameter: [...without('getCreateNewAccountFeeInSystemContract', 'getCreateAccountFee'), { key: 'getCreateNewAccountFeeInSystemContract', value: 0 }, { key: 'getCreateAccountFee', value: 0 }] });
    assert.deepEqual([zero.createNewAccountFeeSun, zero.createAccountBandwidthFeeSun, zero.createNewAccountBandwidthRate], [0n, 0n, 1n]);
    const missing = chainPrices({ chainParameter: without('getCreateNewAccountFeeInSystemContract', 'getCreateAccountFee', 'getCreateNewAccountBandwidthRate') });
    assert.deepEqual([missing.createNewAccountFeeSun, missing.createAccountBandwidthFeeSun, missing.createNewAccountBandwidthRate], [0n, 0n, 1n]);
  });
  test('parse_getchainparameters_handles_entries_without_value_field', () => {
    assert.equal(chainPrices({ chainParameter: [{ key: 'getAllowUpdateAccountName' }, ...PARAMS] }).bandwidthPriceSun, 1000n);
  });
  test('parse_account_resource_canonical_response / _empty_response', () => {
    const r = accountResources({ freeNetUsed: 100, freeNetLimit: 600, NetUsed: 30, NetLimit: 500, EnergyUsed: 200, EnergyLimit: 1000, TotalNetLimit: 43200000000, TotalNetWeight: 84593524300 });
    assert.deepEqual(r, { freeNetUsed: 100n, freeNetLimit: 600n, netUsed: 30n, netLimit: 500n, energyUsed: 200n, energyLimit: 1000n });
    assert.deepEqual(accountResources({}), { freeNetUsed: 0n, freeNetLimit: 0n, netUsed: 0n, netLimit: 0n, energyUsed: 0n, energyLimit: 0n });
  });
});

test('getaccount: {} is never activated, an object with address exists, anything else is a bad answer (GetAccountResponse)', () => {
  assert.equal(accountExists({}), false);
  assert.equal(accountExists({ address: 'T…', balance: 1 }), true);
  assert.throws(() => accountExists({ code: 'X', message: 'y' }), TronNodeError);
});

test('estimate_trc20_transfer_energy: a missing or zero energy_used asks another node', () => {
  assert.equal(transferEnergy({ energy_used: 13_045 }), 13_045n);
  assert.throws(() => transferEnergy({ energy_used: 0 }), TronNodeError);
  assert.throws(() => transferEnergy({}), TronNodeError);
});
