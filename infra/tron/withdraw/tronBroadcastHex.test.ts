/**
 * `send_raw_transaction` input and `broadcasthex` answers, as the reference reads them
 * (`mm2src/coins/eth/tron.rs` `normalize_tron_raw_tx_hex_validates_input`,
 * `mm2src/coins/eth/tron/api.rs` `broadcast_hex_error_response_caught_by_tron_error_from_value`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TronNodeError } from '../tronHttp.ts';
import { broadcastAnswer, normalizeTronTxHex } from './tronBroadcastHex.ts';

test('normalize_tron_raw_tx_hex_validates_input: 0x/0X stripped; empty, odd, non-hex and oversized refused', () => {
  assert.equal(normalizeTronTxHex('0xabcd'), 'abcd');
  assert.equal(normalizeTronTxHex('0XABCD'), 'abcd');
  assert.equal(normalizeTronTxHex('abcd1234'), 'abcd1234');
  for (const bad of ['', '0x', 'abc', 'abcg', 'ab'.repeat(256 * 1024 + 1)]) {
    assert.throws(() => normalizeTronTxHex(bad), (e: unknown) => (e as { errorType: string }).errorType === 'InvalidRequest');
  }
});

test('a SIGERROR refusal is final and readable; SERVER_BUSY tries the next node; a txid is the hash', () => {
  const txid = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const refused = broadcastAnswer({ result: false, code: 'SIGERROR', message: Buffer.from('Validate signature error').toString('hex'), txid });
  assert.ok('refused' in refused);
  assert.equal(refused.refused.message, 'TRON broadcast_hex failed: SIGERROR: Validate signature error');
  assert.throws(() => broadcastAnswer({ result: false, code: 'SERVER_BUSY', message: 'busy' }), (e: unknown) => e instanceof TronNodeError && e.busy !== undefined);
  assert.throws(() => broadcastAnswer({ result: false, message: 'lack of computing resources' }), TronNodeError);
  assert.deepEqual(broadcastAnswer({ result: true, txid: txid.toUpperCase() }), { txid });
  assert.throws(() => broadcastAnswer({ result: true }), TronNodeError);
});
