import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderFeeDetails, renderWithdrawResult, summarizeWithdrawal } from './withdrawResult.ts';
import type { PreparedWithdrawal } from '../withdraw.ts';

test('Given an EIP-1559 ETH withdrawal, When summarized and rendered, Then amounts are exact and prices are ETH per gas', () => {
  const prepared: PreparedWithdrawal = {
    txHex: '02f8',
    txHash: 'ab',
    from: ['0xA'],
    to: ['0xB'],
    totalAmount: 1_500_000_000_000_000_000n,
    spentByMe: 1_500_073_500_000_000_000n,
    receivedByMe: 0n,
    myBalanceChange: -1_500_073_500_000_000_000n,
    feeDetails: { type: 'Eth', coin: 'ETH', decimals: 18, gas: 21_000n, gasPriceWei: 3_500_000_000n, maxFeePerGasWei: 3_500_000_000n, maxPriorityFeePerGasWei: 1_000_000_000n, totalFee: 73_500_000_000_000n },
    timestamp: 1700000000,
  };
  const wire = renderWithdrawResult(summarizeWithdrawal('ETH', 18, prepared));
  assert.equal(wire.total_amount, '1.5');
  assert.equal(wire.spent_by_me, '1.5000735');
  assert.equal(wire.my_balance_change, '-1.5000735');
  assert.deepEqual(wire.fee_details, {
    type: 'Eth', coin: 'ETH', gas: 21000, gas_price: '0.0000000035', max_fee_per_gas: '0.0000000035', max_priority_fee_per_gas: '0.000000001', total_fee: '0.0000735',
  });
  assert.equal(wire.block_height, 0);
  assert.equal(wire.internal_id, '');
  assert.equal(wire.memo, null);
});

test('Given TRON fee details without a creation fee, When rendered, Then money fields are 6-decimal fixed and the creation fee is omitted', () => {
  const wire = renderFeeDetails({ type: 'Tron', coin: 'TRX', bandwidthUsed: 268, energyUsed: 0, bandwidthFee: 0n, energyFee: 0n, totalFee: 100_000n });
  assert.deepEqual(wire, { type: 'Tron', coin: 'TRX', bandwidth_used: 268, energy_used: 0, bandwidth_fee: '0.000000', energy_fee: '0.000000', total_fee: '0.100000' });
  assert.equal('account_creation_fee' in wire, false);
});
