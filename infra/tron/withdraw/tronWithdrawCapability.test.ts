/**
 * The TRON capability over a scripted node: the amounts of `build_transaction_details`
 * (`mm2src/coins/eth/eth_withdraw.rs`), the fee details it hands to the renderer, and that a short
 * token balance answers before the (reverting) energy estimate is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress, Wallet } from 'ethers';
import type { ActiveCoinView, WithdrawSigner } from '../../../actors/ports/withdraw.ts';
import type { WithdrawOrder } from '../../../spec/withdraw.ts';
import { evmToTronBase58 } from '../../keys/tronAddress.ts';
import type { TronHttp, TronJson } from '../tronHttp.ts';
import { createTronWithdraw } from './tronWithdrawCapability.ts';

const KEY = new Wallet('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const ME = evmToTronBase58(KEY.address);
const OTHER = evmToTronBase58(getAddress('0x00000000000000000000000000000000000b0b00'));
const CONTRACT = evmToTronBase58(getAddress('0xa614f803b6fd780986a42c78ec9c7f77e6ded13c'));
const signer: WithdrawSigner = {
  kind: 'key',
  async signDigest(digest) {
    const sig = KEY.signingKey.sign(digest);
    return { r: sig.r.slice(2), s: sig.s.slice(2), recovery: sig.yParity };
  },
};

/** A node answering by path; `transfer` answers the energy estimate. */
function node(answers: { trx: bigint; tokens?: bigint; transfer?: TronJson }) {
  const asked: string[] = [];
  const http: TronHttp = {
    async post(path, body) {
      asked.push(`${path}${body['function_selector'] ? ` ${String(body['function_selector'])}` : ''}`);
      switch (path) {
        case '/wallet/getnowblock':
          return { blockID: `${'0'.repeat(14)}64${'ab'.repeat(24)}`, block_header: { raw_data: { number: 100, timestamp: 1_700_000_000_000 } } };
        case '/wallet/getaccountresource':
          return { freeNetLimit: 600 };
        case '/wallet/getchainparameters':
          return { chainParameter: [{ key: 'getTransactionFee', value: 1000 }, { key: 'getEnergyFee', value: 420 }, { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 }, { key: 'getCreateAccountFee', value: 100_000 }] };
        case '/wallet/getaccount':
          return { address: String(body['address']), balance: Number(answers.trx) };
        default:
          if (body['function_selector'] === 'balanceOf(address)') return { result: { result: true }, constant_result: [(answers.tokens ?? 0n).toString(16).padStart(64, '0')] };
          return answers.transfer ?? { result: { result: true }, energy_used: 13_045, constant_result: [''] };
      }
    },
  };
  return { http, asked };
}

const capability = (http: TronHttp) =>
  createTronWithdraw({ clock: { now: () => 1_700_000_123_456 } as never, onNodes: async (_coin, signal, work) => ({ value: await work(http, signal), node: 'http://node' }) });
const trx: ActiveCoinView = { ticker: 'TRX', decimals: 6, platform: { ticker: 'TRX' } as never, entry: {} };
const usdt: ActiveCoinView = { ...trx, ticker: 'USDT-TRC20', token: { ticker: 'USDT-TRC20', contractAddress: CONTRACT, decimals: 6 } };
const order = (over: Partial<WithdrawOrder>): WithdrawOrder => ({ coin: 'TRX', to: OTHER, amount: 1_000_000n, fee: { kind: 'Auto' }, sender: { address: ME }, ...over });
const signal = new AbortController().signal;

test('TRX to oneself: spent = amount + fee, received = amount, change = −fee; fee details in SUN, timestamp in seconds', async () => {
  const { http } = node({ trx: 10_000_000n });
  const prepared = await capability(http).prepare(trx, order({ to: ME }), signer, signal);
  assert.equal(prepared.feeDetails.type, 'Tron');
  if (prepared.feeDetails.type !== 'Tron') return;
  const fee = prepared.feeDetails.totalFee;
  assert.deepEqual([prepared.totalAmount, prepared.spentByMe, prepared.receivedByMe, prepared.myBalanceChange], [1_000_000n, 1_000_000n + fee, 1_000_000n, -fee]);
  assert.deepEqual([prepared.from, prepared.to, prepared.timestamp], [[ME], [ME], 1_700_000_123]);
  assert.equal(prepared.feeDetails.coin, 'TRX');
});

test('TRC20: spent = the token amount, the fee in TRX; the energy estimate is asked in the same round as the balances', async () => {
  const { http, asked } = node({ trx: 10_000_000n, tokens: 5_000_000n });
  const prepared = await capability(http).prepare(usdt, order({ coin: 'USDT-TRC20', amount: 2_000_000n }), signer, signal);
  assert.deepEqual([prepared.totalAmount, prepared.spentByMe, prepared.myBalanceChange], [2_000_000n, 2_000_000n, -2_000_000n]);
  assert.ok(prepared.feeDetails.type === 'Tron' && prepared.feeDetails.energyUsed === 13_045 && prepared.feeDetails.energyFee === 13_045n * 420n);
  assert.equal(asked.filter((a) => a.endsWith('transfer(address,uint256)')).length, 1);
});

test('more tokens than held: NotSufficientBalance for the token, though the estimate reverted (no energy_used)', async () => {
  const { http } = node({ trx: 10_000_000n, tokens: 1n, transfer: { result: { result: true, message: '52455645525420' }, constant_result: [''] } });
  await assert.rejects(capability(http).prepare(usdt, order({ coin: 'USDT-TRC20', amount: 2n }), signer, signal), (e: unknown) => {
    assert.deepEqual([(e as { errorType: string }).errorType, (e as { data: unknown }).data], ['NotSufficientBalance', { coin: 'USDT-TRC20', available: '0.000001', required: '0.000002' }]);
    return true;
  });
});

test('a hardware signer is UnsupportedError before any node call', async () => {
  const { http, asked } = node({ trx: 10_000_000n });
  const device: WithdrawSigner = { kind: 'device', device: { path: "m/44'/195'/0'/0/0", ethereumSignTx: async () => assert.fail('no device call') } };
  await assert.rejects(capability(http).prepare(trx, order({}), device, signal), (e: unknown) => (e as { errorType: string }).errorType === 'UnsupportedError');
  assert.deepEqual(asked, []);
});
