/**
 * Decisions of a TRON withdrawal against the reference's unit tests in
 * `mm2src/coins/eth/tron/withdraw.rs` (tests module, cited by name), on its fixtures
 * (`nile_block_64687673`, `mainnet_prices`, `new_account_state`, TEST_FROM_HEX / TEST_TO_HEX of
 * `mm2src/coins/eth/tron.rs`), plus the TRC20 rules of `build_tron_trc20_withdraw`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateBandwidth, estimateFee, type TronChainPrices, type TronResources } from './tronFee.ts';
import { trxTransfer } from './tronTransfer.ts';
import { formatAmount } from '../../../spec/amount.ts';
import { planTronWithdrawal, type TronWithdrawalInput } from './tronWithdrawal.ts';
import type { TronWithdrawalReads } from './tronWithdrawReads.ts';

const NONE: TronResources = { freeNetUsed: 0n, freeNetLimit: 0n, netUsed: 0n, netLimit: 0n, energyUsed: 0n, energyLimit: 0n };
const MAINNET: TronChainPrices = { bandwidthPriceSun: 1_000n, energyPriceSun: 420n, createNewAccountFeeSun: 1_000_000n, createAccountBandwidthFeeSun: 100_000n, createNewAccountBandwidthRate: 1n };
const block = { number: 64_687_673n, id: Buffer.from('0000000003db0e39901ce5715271b601b1c57055f5d8fa6a9fe3505eee560308', 'hex'), timestamp: 1_770_522_369_000n };
const reads = (over: Partial<TronWithdrawalReads>): TronWithdrawalReads => ({ block, resources: NONE, prices: MAINNET, trxBalance: 0n, destinationExists: true, ...over });
const trx = (amount: bigint | 'max', over: Partial<TronWithdrawalReads>): TronWithdrawalInput => ({
  coin: { ticker: 'TRX', decimals: 6 },
  feeCoin: 'TRX',
  from: '0x23b00d15c601b30613bf5a3b2f72527c79cc08b6',
  to: '0x8840e6c55b9ada326d211d818c34a994aeced808',
  amount,
  reads: reads(over),
});
const refusal = (type: string, data?: unknown) => (e: unknown) => {
  const error = e as { errorType: string; data: unknown };
  assert.equal(error.errorType, type);
  if (data !== undefined) assert.deepEqual(error.data, data);
  return true;
};

describe('withdraw.rs vectors (TRX)', () => {
  test('trx_max_withdraw_deducts_fee_and_returns_consistent_details', () => {
    const plan = planTronWithdrawal(trx('max', { trxBalance: 10_000_000n }));
    assert.ok(plan.amount > 0n && plan.amount + plan.fee.totalFeeSun <= 10_000_000n);
    assert.equal(plan.fee.accountCreationFeeSun, undefined);
    assert.deepEqual(plan.fee, estimateFee(plan.raw, 0n, NONE, MAINNET, 'TRX', { kind: 'Activated' }), 'the fee is the final transaction\'s');
  });

  test('trx_non_max_withdraw_rejects_insufficient_balance: 0.999999 of 1 TRX, the fee pushes it over', () => {
    // No resources: the fee is every byte of this transaction at 1000 SUN.
    const input = trx(999_999n, { trxBalance: 1_000_000n });
    const feeSun = estimateBandwidth(trxTransfer(input.from, input.to, 999_999n, block)) * 1_000n;
    assert.throws(() => planTronWithdrawal(input), refusal('NotSufficientBalance', { coin: 'TRX', available: '1', required: formatAmount(999_999n + feeSun, 6) }));
  });

  test('trx_max_withdraw_to_new_account_deducts_creation_fee', () => {
    const activated = planTronWithdrawal(trx('max', { trxBalance: 10_000_000n }));
    const fresh = planTronWithdrawal(trx('max', { trxBalance: 10_000_000n, destinationExists: false }));
    assert.ok(fresh.amount < activated.amount);
    assert.equal(fresh.fee.accountCreationFeeSun, 1_000_000n);
    assert.equal(fresh.fee.totalFeeSun, 1_100_000n, 'no staked bandwidth: 1 TRX creation + 0.1 TRX flat');
    assert.equal(fresh.amount + fresh.fee.totalFeeSun, 10_000_000n);
  });

  test('trx_non_max_withdraw_to_new_account_succeeds_with_sufficient_balance', () => {
    const plan = planTronWithdrawal(trx(5_000_000n, { trxBalance: 10_000_000n, destinationExists: false }));
    assert.equal(plan.amount, 5_000_000n);
    assert.ok(plan.fee.totalFeeSun > 1_000_000n);
  });

  test('trx_non_max_withdraw_to_new_account_rejects_insufficient_balance: 4.5 of 5 TRX', () => {
    assert.throws(() => planTronWithdrawal(trx(4_500_000n, { trxBalance: 5_000_000n, destinationExists: false })), refusal('NotSufficientBalance', { coin: 'TRX', available: '5', required: '5.6' }));
  });

  test('trx_max_withdraw_empties_account_no_minimum_balance: amount + fee = balance', () => {
    const plan = planTronWithdrawal(trx('max', { trxBalance: 2_000_000n }));
    assert.equal(plan.amount + plan.fee.totalFeeSun, 2_000_000n);
  });
});

describe('balance rules of build_tron_withdraw', () => {
  test('max with a zero balance is ZeroBalanceToWithdrawMax', () => {
    assert.throws(() => planTronWithdrawal(trx('max', { trxBalance: 0n })), refusal('ZeroBalanceToWithdrawMax'));
  });
  test('an amount above the balance names the amount alone as required', () => {
    assert.throws(() => planTronWithdrawal(trx(3_000_000n, { trxBalance: 2_000_000n })), refusal('NotSufficientBalance', { coin: 'TRX', available: '2', required: '3' }));
  });
  test('max where the fee eats everything is AmountTooLow{0, fee}', () => {
    assert.throws(() => planTronWithdrawal(trx('max', { trxBalance: 1_000_000n, destinationExists: false })), refusal('AmountTooLow', { amount: '0', threshold: '1.1' }));
  });
  test('a new destination on a node without the creation fee parameter is refused, not under-priced', () => {
    const input = trx(1n, { trxBalance: 10_000_000n, destinationExists: false, prices: { ...MAINNET, createNewAccountFeeSun: 0n } });
    assert.throws(() => planTronWithdrawal(input), refusal('InternalError'));
  });
  test('the expiry is the block timestamp plus the window', () => {
    assert.equal(planTronWithdrawal({ ...trx(1n, { trxBalance: 10_000_000n }), expirationSeconds: 300n }).raw.expiration, block.timestamp + 300_000n);
  });
});

describe('TRC20 (build_tron_trc20_withdraw)', () => {
  const token = (amount: bigint | 'max', over: Partial<TronWithdrawalReads>): TronWithdrawalInput => ({
    ...trx(amount, {}),
    coin: { ticker: 'USDT-TRC20', decimals: 6, contract: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c' },
    reads: reads({ destinationExists: undefined, tokenBalance: 5_000_000n, trxBalance: 20_000_000n, energyUsed: 13_045n, ...over }),
  });
  test('fee_limit = energy × getEnergyFee, energy paid beyond staked energy, never a creation fee, the token amount untouched', () => {
    const plan = planTronWithdrawal(token('max', { resources: { ...NONE, energyLimit: 45n } }));
    assert.equal(plan.amount, 5_000_000n);
    assert.equal(plan.raw.feeLimit, 13_045n * 420n);
    assert.equal(plan.fee.energyFeeSun, 13_000n * 420n);
    assert.equal(plan.fee.accountCreationFeeSun, undefined);
    assert.equal(plan.fee.totalFeeSun, plan.fee.bandwidthFeeSun + plan.fee.energyFeeSun);
  });
  test('a TRX balance below the fee names TRX with the fee as required', () => {
    const plan = planTronWithdrawal(token(1n, {}));
    const short = plan.fee.totalFeeSun - 1n;
    assert.throws(() => planTronWithdrawal(token(1n, { trxBalance: short })), refusal('NotSufficientBalance', { coin: 'TRX', available: formatAmount(short, 6), required: formatAmount(plan.fee.totalFeeSun, 6) }));
  });
  test('more tokens than held names the token', () => {
    assert.throws(() => planTronWithdrawal(token(5_000_001n, {})), refusal('NotSufficientBalance', { coin: 'USDT-TRC20', available: '5', required: '5.000001' }));
  });
  test('max of no tokens is ZeroBalanceToWithdrawMax', () => {
    assert.throws(() => planTronWithdrawal(token('max', { tokenBalance: 0n })), refusal('ZeroBalanceToWithdrawMax'));
  });
});
