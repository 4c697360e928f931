/**
 * `send_raw_transaction` for TRON: the hex checked as the reference checks it
 * (`mm2src/coins/eth/tron.rs` `normalize_tron_raw_tx_hex`) and the node's `broadcasthex` answer
 * read as the reference reads it (`mm2src/coins/eth/tron/api.rs` `tron_error_from_value`): a busy
 * node is asked again elsewhere, a refusal (bad signature, expired, duplicate…) is final.
 */
import { invalidRequest, type ActivationError } from '../../../spec/errors.ts';
import { TronNodeError, type TronJson } from '../tronHttp.ts';
import { internalError } from './tronWithdrawErrors.ts';

/** The reference's cap on a raw TRON transaction. */
const MAX_TX_BYTES = 256 * 1024;
/** java-tron's `response_code`s that mean "this node, now": try another node. */
const TRANSIENT_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);

/** `tx_hex` without `0x`, checked: non-empty, at most 256 KiB, even length, hex digits only. */
export function normalizeTronTxHex(input: string): string {
  const hex = input.replace(/^0[xX]/, '');
  const refuse = (why: string) => invalidRequest(`tx_hex: ${why}`);
  if (hex === '') throw refuse('the TRON raw transaction hex is empty');
  if (hex.length > MAX_TX_BYTES * 2) throw refuse(`the TRON raw transaction is larger than ${MAX_TX_BYTES} bytes`);
  if (hex.length % 2 !== 0) throw refuse('the TRON raw transaction hex has an odd length');
  if (!/^[0-9a-fA-F]+$/.test(hex)) throw refuse('the TRON raw transaction hex has non-hex characters');
  return hex.toLowerCase();
}

/**
 * A `broadcasthex` answer: `{result: true, txid}`, or a final refusal; a transient code or a rate
 * limit throws `TronNodeError` so failover tries the next node.
 */
export function broadcastAnswer(answer: TronJson): { txid: string } | { refused: ActivationError } {
  if (answer['result'] === true && typeof answer['txid'] === 'string' && /^[0-9a-fA-F]{64}$/.test(answer['txid'])) {
    return { txid: answer['txid'].toLowerCase() };
  }
  const code = typeof answer['code'] === 'string' ? answer['code'] : undefined;
  const message = typeof answer['message'] === 'string' ? readable(answer['message']) : 'no result';
  if ((code !== undefined && TRANSIENT_CODES.has(code)) || /lack of computing resources/i.test(message)) {
    throw new TronNodeError(`broadcasthex: ${code ?? ''} ${message}`.trim(), code === 'SERVER_BUSY' ? { busy: {} } : {});
  }
  if (answer['result'] !== false) throw new TronNodeError('broadcasthex: neither a txid nor a refusal');
  return { refused: internalError(`TRON broadcast_hex failed: ${code === undefined ? '' : `${code}: `}${message}`) };
}

/** java-tron prints `message` as hex of the text; plain text passes through. */
function readable(message: string): string {
  const text = /^(?:[0-9a-fA-F]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
  return text.replace(/[^\x20-\x7e]/g, '').slice(0, 200);
}
