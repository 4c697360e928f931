/**
 * The checks before any node call (the reference's `build_tron_withdraw` order): the destination
 * (`mm2src/coins/eth/tron/address.rs` `FromStr`), the fee policy (`withdraw.rs`
 * `validate_tron_fee_policy_rejects_evm_gas_options`) and the memo; a refused request reads
 * nothing and signs nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'ethers';
import { evmToTronBase58, evmToTronHex } from '../../keys/tronAddress.ts';
import { tronDestination } from './tronDestination.ts';
import { prepareTronWithdrawal, type TronWithdrawRequest } from './tronWithdraw.ts';

const EVM = getAddress('0x8840e6c55b9ada326d211d818c34a994aeced808');
const refusal = (type: string, text?: RegExp) => (e: unknown) => {
  assert.equal((e as { errorType: string }).errorType, type);
  if (text) assert.match((e as Error).message, text);
  return true;
};

describe('tronDestination', () => {
  test('base58 T…, hex 41… and 0x41… name the same account', () => {
    assert.equal(tronDestination(evmToTronBase58(EVM)), EVM);
    assert.equal(tronDestination(evmToTronHex(EVM)), EVM);
    assert.equal(tronDestination(`0x${evmToTronHex(EVM)}`), EVM);
  });
  test('an EVM address, a Bitcoin address, a bad checksum and another prefix are InvalidAddress', () => {
    const base58 = evmToTronBase58(EVM);
    const flipped = base58.slice(0, -1) + (base58.endsWith('A') ? 'B' : 'A');
    for (const bad of [EVM, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', flipped, `42${EVM.slice(2)}`, '', 'T']) {
      assert.throws(() => tronDestination(bad), refusal('InvalidAddress'), bad);
    }
    assert.throws(() => tronDestination(flipped), refusal('InvalidAddress', /checksum/));
  });
});

describe('prepareTronWithdrawal refuses before reading or signing', () => {
  const request = (over: Partial<TronWithdrawRequest>): TronWithdrawRequest => ({
    coin: { ticker: 'TRX', decimals: 6 },
    feeCoin: 'TRX',
    from: EVM,
    to: evmToTronBase58(EVM),
    amount: 1n,
    feeKind: 'Auto',
    ...over,
  });
  const untouched = () => {
    const calls = { reads: 0, signs: 0 };
    const read = async () => {
      calls.reads++;
      throw new Error('read');
    };
    const sign = async () => {
      calls.signs++;
      return new Uint8Array(65);
    };
    return { calls, read, sign };
  };
  for (const [kind, text] of [['EthGas', /EVM gas fee options \(EthGas\).*omit the fee field/], ['EthGasEip1559', /EVM gas/], ['UtxoFixed', /Manual fee \(UtxoFixed\).*omit the fee field/], ['Qrc20Gas', /Manual fee/]] as const) {
    test(`fee ${kind} is InvalidFeePolicy naming what fits`, async () => {
      const { calls, read, sign } = untouched();
      await assert.rejects(prepareTronWithdrawal(request({ feeKind: kind }), read, sign), refusal('InvalidFeePolicy', text));
      assert.deepEqual(calls, { reads: 0, signs: 0 });
    });
  }
  test('a memo is UnsupportedError (TRON burns 1 TRX for one)', async () => {
    const { calls, read, sign } = untouched();
    await assert.rejects(prepareTronWithdrawal(request({ memo: 'hi' }), read, sign), refusal('UnsupportedError', /memo/i));
    assert.deepEqual(calls, { reads: 0, signs: 0 });
  });
  test('the address is checked first, as the reference does', async () => {
    const { calls, read, sign } = untouched();
    await assert.rejects(prepareTronWithdrawal(request({ to: EVM, feeKind: 'EthGas', memo: 'x' }), read, sign), refusal('InvalidAddress'));
    assert.deepEqual(calls, { reads: 0, signs: 0 });
  });
});
