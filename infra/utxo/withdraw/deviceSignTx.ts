/**
 * A UTXO withdrawal signed on a hardware device (KDF `utxo/utxo_withdraw.rs` `InitUtxoWithdraw`,
 * `utxo_signer` with `TrezorTxSigner`): the same plan as a key provider's, handed to the device
 * with the previous transactions, and the device's signed transaction checked against the plan
 * before it is accepted (same inputs and outputs, so the device cannot have changed what is paid).
 */
import { Transaction } from 'bitcoinjs-lib';
import type { DeviceSigner, UtxoTxToSign } from '../../../actors/ports/withdraw.ts';
import { ActivationError, ErrorType } from '../../../spec/errors.ts';
import { UtxoAddressFormat } from '../utxoAddress.ts';
import { unsignedTx } from './signTx.ts';
import { planWithdrawal, UtxoWithdrawRefused, withdrawalOf, type UtxoWithdrawal, type UtxoWithdrawCoin, type UtxoWithdrawOrder } from './utxoWithdraw.ts';

const signingError = (message: string) => new ActivationError(ErrorType.SigningError, message, message);

export async function deviceSignedWithdrawal(coin: UtxoWithdrawCoin, order: UtxoWithdrawOrder, senderKey: Uint8Array, device: DeviceSigner, nowSeconds: number, signal: AbortSignal): Promise<UtxoWithdrawal> {
  if (device.utxoSignTx === undefined) throw new UtxoWithdrawRefused({ failure: 'Unsupported', message: `${coin.entry.coin}: the hardware wallet cannot sign UTXO transactions` });
  const coinName = coin.entry.trezor_coin;
  if (coinName === undefined) throw new UtxoWithdrawRefused({ failure: 'Unsupported', message: `${coin.entry.coin}: the coins file gives no trezor_coin, so the device cannot sign it` });
  const planned = await planWithdrawal(coin, order, senderKey, signal);
  const { plan, params } = planned;
  if (params.forkIdSignatures) throw new UtxoWithdrawRefused({ failure: 'Unsupported', message: `${coin.entry.coin}: fork-id signatures on a device are not supported` });
  const txids = [...new Set(plan.inputs.map((i) => i.txid))];
  const raws = await coin.chain.rawTransactions(txids, signal);
  const request: UtxoTxToSign = {
    coinName,
    version: params.txVersion,
    lockTime: nowSeconds,
    inputScriptType: coin.addressRule.format === UtxoAddressFormat.Segwit ? 'SPENDWITNESS' : 'SPENDADDRESS',
    inputs: plan.inputs.map((i) => ({ prevHash: i.txid, prevIndex: i.vout, amount: i.value })),
    outputs: plan.outputs.map((o, index) => (index === 0 ? { address: order.to, amount: o.value } : { change: true as const, amount: o.value })),
    previous: txids.map((txid, i) => ({ txid, hex: raws[i]! })),
  };
  const { txHex } = await device.utxoSignTx(request, signal);
  const signed = checkedAgainstPlan(txHex, unsignedTx(plan, { txVersion: params.txVersion, lockTime: nowSeconds }));
  return withdrawalOf(planned, order.to, { hex: txHex, txid: signed.getId() });
}

/** The device's transaction must be the plan's, signatures aside. */
function checkedAgainstPlan(txHex: string, expected: Transaction): Transaction {
  let signed: Transaction;
  try {
    signed = Transaction.fromHex(txHex);
  } catch {
    throw signingError('the device answered something that is not a transaction');
  }
  const same =
    signed.version === expected.version &&
    signed.locktime === expected.locktime &&
    signed.ins.length === expected.ins.length &&
    signed.ins.every((input, i) => Buffer.from(input.hash).equals(Buffer.from(expected.ins[i]!.hash)) && input.index === expected.ins[i]!.index) &&
    signed.outs.length === expected.outs.length &&
    signed.outs.every((output, i) => output.value === expected.outs[i]!.value && Buffer.from(output.script).equals(Buffer.from(expected.outs[i]!.script)));
  if (!same) throw signingError('the device signed a transaction other than the one planned');
  return signed;
}
