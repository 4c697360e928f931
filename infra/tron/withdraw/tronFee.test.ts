/**
 * The fee model against the reference's own unit-test vectors, each cited by file and test name:
 * `mm2src/coins/eth/tron/fee.rs` (tests module) and `mm2src/coins/eth/tron/withdraw.rs` (tests
 * module), with the reference's fixtures `mainnet_prices()` and `new_account_state()`
 * (`mm2src/coins/eth/tron.rs` `test_fixtures`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateBandwidth, feeForBandwidth, type TronChainPrices, type TronDestination, type TronResources } from './tronFee.ts';
import { trxTransfer } from './tronTransfer.ts';

const NONE: TronResources = { freeNetUsed: 0n, freeNetLimit: 0n, netUsed: 0n, netLimit: 0n, energyUsed: 0n, energyLimit: 0n };
/** tron.rs `mainnet_prices()`. */
const MAINNET: TronChainPrices = { bandwidthPriceSun: 1_000n, energyPriceSun: 420n, createNewAccountFeeSun: 1_000_000n, createAccountBandwidthFeeSun: 100_000n, createNewAccountBandwidthRate: 1n };
/** tron.rs `new_account_state()`. */
const NEW_ACCOUNT: TronDestination = { kind: 'NewAccount', creationFeeSun: 1_000_000n, bandwidthFallbackSun: 100_000n, bandwidthRate: 1n };
const ACTIVATED: TronDestination = { kind: 'Activated' };
const NO_CREATION_PRICES: TronChainPrices = { ...MAINNET, createNewAccountFeeSun: 0n, createAccountBandwidthFeeSun: 0n };
/**
 * fee.rs `sample_raw()` signed with the 65-byte placeholder, + 64: raw = ref_block_bytes (4) +
 * ref_block_hash (10) + expiration (7) + timestamp (7) = 28 bytes; Transaction = 2 + 28 + 2 + 65.
 */
const SAMPLE_BANDWIDTH = 2n + 28n + 2n + 65n + 64n;

describe('fee.rs vectors', () => {
  test('trx_fee_is_zero_when_bandwidth_is_fully_available', () => {
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, { ...NONE, freeNetLimit: SAMPLE_BANDWIDTH }, { ...NO_CREATION_PRICES }, 'TRX', ACTIVATED);
    assert.deepEqual(fee, { coin: 'TRX', bandwidthUsed: SAMPLE_BANDWIDTH, energyUsed: 0n, bandwidthFeeSun: 0n, energyFeeSun: 0n, totalFeeSun: 0n });
  });

  test('trc20_fee_calculation_handles_bandwidth_and_energy_deficits', () => {
    // No free bandwidth left, 50 staked left; 100 energy left of 500 used.
    const resources = { freeNetUsed: 100n, freeNetLimit: 100n, netUsed: 30n, netLimit: 80n, energyUsed: 200n, energyLimit: 300n };
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 500n, resources, NO_CREATION_PRICES, 'TRX', ACTIVATED);
    assert.equal(fee.bandwidthUsed, SAMPLE_BANDWIDTH);
    assert.equal(fee.energyUsed, 500n);
    assert.equal(fee.bandwidthFeeSun, (SAMPLE_BANDWIDTH - 50n) * 1_000n);
    assert.equal(fee.energyFeeSun, 400n * 420n);
    assert.equal(fee.totalFeeSun, (SAMPLE_BANDWIDTH - 50n) * 1_000n + 168_000n);
    assert.equal(fee.accountCreationFeeSun, undefined);
  });

  test('fee_calculation_saturates_on_large_inputs', () => {
    const max = (1n << 64n) - 1n;
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, max, NONE, { ...NO_CREATION_PRICES, bandwidthPriceSun: max, energyPriceSun: max }, 'TRX', ACTIVATED);
    assert.deepEqual([fee.bandwidthFeeSun, fee.energyFeeSun, fee.totalFeeSun], [max, max, max]);
  });

  test('account_creation_fee_included_for_new_dest_no_bandwidth: 0.1 + 1 = 1.1 TRX', () => {
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, NONE, MAINNET, 'TRX', NEW_ACCOUNT);
    assert.equal(fee.accountCreationFeeSun, 1_000_000n);
    assert.equal(fee.bandwidthFeeSun, 100_000n);
    assert.equal(fee.totalFeeSun, 1_100_000n);
    assert.equal(fee.bandwidthUsed, 0n, 'the flat fallback uses no bandwidth');
  });

  test('account_creation_fee_no_extra_bw_fee_when_bandwidth_available: staked bandwidth covers it, 1 TRX', () => {
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, { ...NONE, netLimit: SAMPLE_BANDWIDTH }, MAINNET, 'TRX', NEW_ACCOUNT);
    assert.equal(fee.accountCreationFeeSun, 1_000_000n);
    assert.equal(fee.bandwidthFeeSun, 0n);
    assert.equal(fee.totalFeeSun, 1_000_000n);
    assert.equal(fee.bandwidthUsed, SAMPLE_BANDWIDTH);
  });

  test('account_creation_fee_fallback_when_only_free_bandwidth_available: 1.1 TRX', () => {
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, { ...NONE, freeNetLimit: SAMPLE_BANDWIDTH }, MAINNET, 'TRX', NEW_ACCOUNT);
    assert.equal(fee.bandwidthFeeSun, 100_000n);
    assert.equal(fee.totalFeeSun, 1_100_000n);
  });

  test('account_creation_fee_none_for_activated_destination', () => {
    const fee = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, NONE, MAINNET, 'TRX', ACTIVATED);
    assert.equal('accountCreationFeeSun' in fee, false);
    assert.equal(fee.totalFeeSun, SAMPLE_BANDWIDTH * 1_000n);
  });

  test('the creation bandwidth rate multiplies the bandwidth the staked part must cover', () => {
    const rate3: TronDestination = { ...NEW_ACCOUNT, bandwidthRate: 3n } as TronDestination;
    const short = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, { ...NONE, netLimit: SAMPLE_BANDWIDTH * 3n - 1n }, MAINNET, 'TRX', rate3);
    assert.equal(short.bandwidthFeeSun, 100_000n);
    const enough = feeForBandwidth(SAMPLE_BANDWIDTH, 0n, { ...NONE, netLimit: SAMPLE_BANDWIDTH * 3n }, MAINNET, 'TRX', rate3);
    assert.deepEqual([enough.bandwidthUsed, enough.bandwidthFeeSun], [SAMPLE_BANDWIDTH * 3n, 0n]);
  });
});

test('bandwidth_estimation_uses_encoded_tx_size_plus_result_buffer: the Nile golden TRX transfer, signed, + 64', () => {
  // tx_builder.rs build_trx_transfer_golden_vector: 264 hex digits of raw data = 132 bytes, whose
  // length takes a 2-byte varint; Transaction = tag + length + raw + (tag + length + 65-byte signature).
  const goldenRawLength = 132;
  const raw = trxTransfer('0x23b00d15c601b30613bf5a3b2f72527c79cc08b6', '0x8840e6c55b9ada326d211d818c34a994aeced808', 1000n, {
    number: 64_687_673n,
    id: Buffer.from('0000000003db0e39901ce5715271b601b1c57055f5d8fa6a9fe3505eee560308', 'hex'),
    timestamp: 1_770_522_369_000n,
  });
  // Same varint sizes as the broadcast one (timestamps of equal length), so the same size.
  assert.equal(estimateBandwidth(raw), BigInt(1 + 2 + goldenRawLength + 2 + 65) + 64n);
});
