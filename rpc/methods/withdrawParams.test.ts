import { test } from 'node:test';
import assert from 'node:assert/strict';
import { feeRequestOf, withdrawCommandOf } from './withdrawParams.ts';

test('Given each fee type, When read, Then its own fields become the domain fee; a foreign or missing field is named', () => {
  assert.deepEqual(feeRequestOf(undefined), { kind: 'Auto' });
  assert.deepEqual(feeRequestOf({ type: 'EthGas', gas_price: '3.5', gas: 21000 }), { kind: 'EthGas', gasPriceGwei: '3.5', gas: 21000 });
  assert.deepEqual(feeRequestOf({ type: 'EthGasEip1559', max_fee_per_gas: '2', max_priority_fee_per_gas: 1, gas_option: { type: 'Set', gas: 50000 } }), {
    kind: 'EthGasEip1559',
    maxFeePerGasGwei: '2',
    maxPriorityFeePerGasGwei: '1',
    gas: 50000,
  });
  assert.equal(feeRequestOf({ type: 'EthGasEip1559', max_fee_per_gas: '2', max_priority_fee_per_gas: '1', gas: 7 }).kind, 'EthGasEip1559');
  assert.deepEqual(feeRequestOf({ type: 'UtxoPerKbyte', amount: '0.0001' }), { kind: 'UtxoPerKbyte', amount: '0.0001' });
  assert.throws(() => feeRequestOf({ type: 'UtxoFixed', amount: '1', gas: 5 }), /params\.fee\.gas: not a field of fee type UtxoFixed/);
  assert.throws(() => feeRequestOf({ type: 'Qrc20Gas', gas_limit: 1 }), /params\.fee\.gas_price: required with fee type Qrc20Gas/);
  assert.throws(() => feeRequestOf({ type: 'EthGasEip1559', max_fee_per_gas: '2', max_priority_fee_per_gas: '1', gas: 1, gas_option: { type: 'Calc' } }), /either as gas or in gas_option/);
  assert.throws(() => feeRequestOf({ type: 'UtxoPriority', priority: 'Low' }), /UtxoPriority/);
});

test('Given withdraw params, When read, Then from, memo and expiry become domain fields; numbers must be plain decimals', () => {
  const command = withdrawCommandOf({ coin: 'ETH', to: '0xB', amount: 0.5, max: false, from: { account_id: 0, chain: 'Internal', address_id: 3 }, memo: 'm', expiration_seconds: 30 });
  assert.deepEqual(command, { ticker: 'ETH', to: '0xB', amount: '0.5', max: false, fee: { kind: 'Auto' }, from: { accountId: 0, chain: 'Internal', addressId: 3 }, memo: 'm', expirationSeconds: 30 });
  assert.throws(() => withdrawCommandOf({ coin: 'ETH', to: '0xB', amount: 1e-7, max: false }), /plain decimal/);
  assert.throws(() => withdrawCommandOf({ coin: 'ETH', to: '0xB', amount: '1', max: true }), /either an amount or max/);
});
