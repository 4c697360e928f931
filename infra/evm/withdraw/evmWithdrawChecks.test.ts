import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEvmFee, checkRecipient } from './evmWithdrawChecks.ts';
import type { WithdrawOrder } from '../../../spec/withdraw.ts';

const GOOD = '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d';
const order = (fee: WithdrawOrder['fee']): WithdrawOrder => ({ coin: 'ETH', to: GOOD, amount: 1n, fee, sender: { address: GOOD } });

test('Given recipients, When checked, Then only the exact EIP-55 form passes; each refusal is InvalidAddress naming why', () => {
  assert.equal(checkRecipient(GOOD), GOOD);
  const wrong = GOOD.replace('bf03cBA4', 'bf03cbA4');
  for (const [to, why] of [[GOOD.toLowerCase(), /checksum/], [wrong, /checksum/], [GOOD.slice(2), /prefixed with 0x/], ['0x1234', /20 bytes/]] as const) {
    assert.throws(() => checkRecipient(to), (e: { errorType: string; message: string }) => e.errorType === 'InvalidAddress' && why.test(e.message));
  }
});

test('Given fee policies, When checked for an EVM coin, Then UTXO ones are InvalidFeePolicy naming what fits, and EIP-1559 needs max_eth_tx_type 2', () => {
  assert.throws(() => checkEvmFee(order({ kind: 'UtxoFixed', amount: 1n }), {}), (e: { errorType: string; message: string }) => e.errorType === 'InvalidFeePolicy' && /EthGas/.test(e.message));
  const eip1559 = order({ kind: 'EthGasEip1559', maxFeePerGasWei: 2n, maxPriorityFeePerGasWei: 1n, gas: undefined });
  assert.throws(() => checkEvmFee(eip1559, {}), (e: { errorType: string }) => e.errorType === 'TxTypeNotSupported');
  assert.equal(checkEvmFee(eip1559, { max_eth_tx_type: 2 }).kind, 'EthGasEip1559');
  assert.equal(checkEvmFee(order({ kind: 'Auto' }), {}).kind, 'Auto');
});
