import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimatedGas, gasOf } from './evmFee.ts';

test('Given no fee, When the node gives a gas price and a base fee, Then the legacy price is the larger of the price and base fee × 1.13', () => {
  assert.deepEqual(gasOf({ kind: 'Auto' }, 10n, 100n), { fee: { type: 'legacy', gasPrice: 113n }, gas: undefined, pricePerGas: 113n });
  assert.deepEqual(gasOf({ kind: 'Auto' }, 200n, 100n).pricePerGas, 200n);
  assert.deepEqual(gasOf({ kind: 'Auto' }, 7n, undefined).pricePerGas, 7n, 'a node without EIP-1559: its price');
});

test('Given EthGas or EthGasEip1559, When the fee is planned, Then it is as given; EIP-1559 prices the balance check at the max fee', () => {
  assert.deepEqual(gasOf({ kind: 'EthGas', gasPriceWei: 5n, gas: 21000n }, undefined, undefined), { fee: { type: 'legacy', gasPrice: 5n }, gas: 21000n, pricePerGas: 5n });
  const eip = gasOf({ kind: 'EthGasEip1559', maxFeePerGasWei: 9n, maxPriorityFeePerGasWei: 2n, gas: undefined }, undefined, undefined);
  assert.deepEqual(eip, { fee: { type: 'eip1559', maxFeePerGas: 9n, maxPriorityFeePerGas: 2n }, gas: undefined, pricePerGas: 9n });
});

test('Given the node refused the estimate, When read, Then insufficient funds is AmountTooLow, a low fee cap InvalidFee, anything else Transport', () => {
  assert.equal(estimatedGas({ gas: 50_000n }, 0n, 1n, 18), 50_000n);
  assert.throws(() => estimatedGas({ refused: 'insufficient funds for transfer' }, 10n, 1_000_000_000n, 18), (e: { errorType: string; data: unknown }) => {
    assert.deepEqual(e.data, { amount: '0.00000000000000001', threshold: '0.000021' });
    return e.errorType === 'AmountTooLow';
  });
  assert.throws(() => estimatedGas({ refused: 'max fee per gas less than block base fee: fee cap less than block base fee' }, 0n, 1n, 18), (e: { errorType: string }) => e.errorType === 'InvalidFee');
  assert.throws(() => estimatedGas({ refused: 'execution reverted' }, 0n, 1n, 18), (e: { errorType: string; message: string }) => e.errorType === 'Transport' && /execution reverted/.test(e.message));
});
