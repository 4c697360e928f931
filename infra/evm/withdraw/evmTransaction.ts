/**
 * An EVM transaction built, signed by the key provider or the device, and serialized (legacy type 0
 * with EIP-155, or EIP-1559 type 2): the signature must recover the sender, or nothing is answered.
 */
import { Signature, Transaction, getAddress, getBytes, type TransactionLike } from 'ethers';
import { errorSentence, ErrorType } from '../../../spec/errors.ts';
import type { EthereumTxToSign, RecoverableSignature, WithdrawSigner } from '../../../actors/ports/withdraw.ts';

/** `transfer(address,uint256)` call data. */
export function erc20TransferData(to: string, amount: bigint): string {
  return `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`;
}

function transactionOf(tx: EthereumTxToSign): Transaction {
  const common: TransactionLike = { chainId: tx.chainId, nonce: Number(tx.nonce), to: tx.to, value: tx.value, data: `0x${tx.data}`, gasLimit: tx.gasLimit };
  return Transaction.from(
    tx.fee.type === 'legacy'
      ? { ...common, type: 0, gasPrice: tx.fee.gasPrice }
      : { ...common, type: 2, maxFeePerGas: tx.fee.maxFeePerGas, maxPriorityFeePerGas: tx.fee.maxPriorityFeePerGas },
  );
}

/** Signs `tx` as `sender`; resolves with its hex and hash (lowercase, without `0x`). */
export async function signEvmTransaction(tx: EthereumTxToSign, sender: string, signer: WithdrawSigner, signal: AbortSignal): Promise<{ hex: string; hash: string }> {
  const transaction = transactionOf(tx);
  signal.throwIfAborted();
  let signature: RecoverableSignature;
  try {
    signature = signer.kind === 'key' ? await signer.signDigest(getBytes(transaction.unsignedHash)) : await signer.device.ethereumSignTx(tx, signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  }
  transaction.signature = Signature.from({ r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: signature.recovery });
  if (transaction.from !== getAddress(sender)) {
    throw errorSentence(ErrorType.SigningError, `the signature recovers ${transaction.from}, not the sender ${getAddress(sender)}`);
  }
  return { hex: transaction.serialized.slice(2), hash: transaction.hash!.slice(2) };
}
