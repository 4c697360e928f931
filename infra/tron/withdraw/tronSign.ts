/**
 * Signing a TRON transaction (the reference's `mm2src/coins/eth/tron/sign.rs`): the txID is
 * SHA-256 of the raw transaction's bytes, the signature a recoverable secp256k1 signature of the
 * txID as `r ‖ s ‖ v` with `v` 0 or 1; the signed transaction is `Transaction{raw_data, [sig]}`.
 */
import { createHash } from 'node:crypto';
import { encodeRawTransaction, encodeTransaction, type TronRawTransaction } from './tronProtobuf.ts';
import { internalError } from './tronWithdrawErrors.ts';

/** Signs a 32-byte digest with the sender's key: 65 bytes `r ‖ s ‖ v` (`v` 0/1 or 27/28). */
export type TronDigestSigner = (digest: Uint8Array) => Promise<Uint8Array>;

export interface SignedTronTransaction {
  /** The txID (hex, no `0x`). */
  readonly txHash: string;
  /** The protobuf `Transaction` (hex, no `0x`): what `broadcasthex` takes. */
  readonly txHex: string;
}

/** The txID of `raw`: SHA-256 of its protobuf bytes. */
export function tronTxId(raw: TronRawTransaction): Uint8Array {
  return createHash('sha256').update(encodeRawTransaction(raw)).digest();
}

export async function signTronTransaction(raw: TronRawTransaction, sign: TronDigestSigner): Promise<SignedTronTransaction> {
  const rawBytes = encodeRawTransaction(raw);
  const txId = createHash('sha256').update(rawBytes).digest();
  const signature = Uint8Array.from(await sign(txId));
  if (signature.length !== 65) throw internalError(`a TRON signature is 65 bytes, the signer gave ${signature.length}`);
  const v = signature[64]!;
  if (v === 27 || v === 28) signature[64] = v - 27;
  else if (v !== 0 && v !== 1) throw internalError(`invalid signature recovery id ${v}`);
  return { txHash: txId.toString('hex'), txHex: Buffer.from(encodeTransaction(rawBytes, [signature])).toString('hex') };
}
