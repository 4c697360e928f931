/**
 * Signing an EVM transaction on the device (`ethereumSignTransaction` of `@trezor/connect`: the
 * device shows it and the user confirms), with the PIN and button flow of every device call
 * (`publicKeyCall.ts`). Answers the signature with its recovery id; the caller serializes and
 * checks that it recovers the sender.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { Log } from '../../kernel/log.ts';
import type { PublicKeyRequest } from '../../actors/ports/hardwareWallet.ts';
import type { EthereumTxToSign, RecoverableSignature } from '../../actors/ports/withdraw.ts';
import type { ConnectRuntime } from './connectRuntime.ts';
import { callDevice } from './publicKeyCall.ts';
import { hwError } from './hwErrors.ts';

const hex = (value: bigint) => `0x${value.toString(16)}`;

export async function signEthereumTransaction(
  runtime: ConnectRuntime,
  request: PublicKeyRequest & { readonly tx: EthereumTxToSign },
  clock: Clock,
  log?: Log,
): Promise<RecoverableSignature> {
  const { tx } = request;
  const fee = tx.fee.type === 'legacy' ? { gasPrice: hex(tx.fee.gasPrice) } : { maxFeePerGas: hex(tx.fee.maxFeePerGas), maxPriorityFeePerGas: hex(tx.fee.maxPriorityFeePerGas) };
  const transaction = { to: tx.to, value: hex(tx.value), gasLimit: hex(tx.gasLimit), nonce: hex(tx.nonce), data: `0x${tx.data}`, chainId: tx.chainId, ...fee };
  const payload = await callDevice(runtime, request, clock, log, () => runtime.api.ethereumSignTransaction({ path: request.path, transaction }));
  const v = BigInt(payload.v);
  // connect answers EIP-155 `v` for a legacy transaction (recovery + 2 × chain id + 35), the bare recovery id for EIP-1559.
  const recovery = tx.fee.type === 'legacy' ? v - 35n - 2n * BigInt(tx.chainId) : v;
  if (recovery !== 0n && recovery !== 1n) throw hwError('Failure', { detail: 'the device returned a signature with an unexpected v' });
  const word = (value: string) => value.replace(/^0x/, '').padStart(64, '0');
  return { r: word(payload.r), s: word(payload.s), recovery: recovery === 0n ? 0 : 1 };
}
