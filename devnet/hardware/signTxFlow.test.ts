import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { payments, Transaction } from 'bitcoinjs-lib';
import { createDeviceKeys, parseBip32Path, TEST_MNEMONIC } from './deviceKeys.ts';
import { createFirmware } from './firmware.ts';
import type { DeviceMessage } from './codec.ts';

const PATH = parseBip32Path("m/44'/1'/0'/0/0");
const keys = createDeviceKeys(TEST_MNEMONIC);
const pubkey = Buffer.from(keys.publicNode(PATH).node.public_key, 'hex');
const msg = (name: string, fields: Record<string, unknown> = {}): DeviceMessage => ({ name, fields });

/** A previous transaction paying the device's key `value`. */
function previous(value: bigint): Transaction {
  const tx = new Transaction();
  tx.addInput(Buffer.alloc(32, 7), 0, 0xffffffff, Buffer.from('51', 'hex'));
  tx.addOutput(payments.p2pkh({ pubkey }).output!, value);
  return tx;
}

/** Runs SignTx for one input claiming `claimed` from a previous transaction paying `paid`; the device's last answer. */
function sign(claimed: bigint, paid: bigint): DeviceMessage[] {
  const fw = createFirmware({ keys, deviceId: 'X', label: 'x' });
  const prev = previous(paid);
  const hash = prev.getId();
  let answer = fw.handle(msg('SignTx', { coin_name: 'Testnet', inputs_count: 1, outputs_count: 1, version: 2, lock_time: 0 }));
  assert.deepEqual(answer[0]!.fields, { request_type: 'TXINPUT', details: { request_index: 0 } });
  answer = fw.handle(msg('TxAck', { tx: { inputs: [{ address_n: PATH, prev_hash: hash, prev_index: 0, amount: claimed.toString(), script_type: 'SPENDADDRESS' }] } }));
  assert.deepEqual(answer[0]!.fields, { request_type: 'TXMETA', details: { request_index: 0, tx_hash: hash } });
  answer = fw.handle(msg('TxAck', { tx: { version: 1, lock_time: 0, inputs_cnt: 1, outputs_cnt: 1 } }));
  answer = fw.handle(msg('TxAck', { tx: { inputs: [{ prev_hash: '07'.repeat(32), prev_index: 0, script_sig: '51', sequence: 0xffffffff }] } }));
  answer = fw.handle(msg('TxAck', { tx: { bin_outputs: [{ amount: paid.toString(), script_pubkey: Buffer.from(prev.outs[0]!.script).toString('hex') }] } }));
  if (answer[0]!.name === 'Failure') return answer;
  assert.deepEqual(answer[0]!.fields, { request_type: 'TXOUTPUT', details: { request_index: 0 } });
  answer = fw.handle(msg('TxAck', { tx: { outputs: [{ address: 'mfWxJ45yp2SFn7UciZyNpvDKrzbhyfKrY8', amount: (claimed - 1000n).toString(), script_type: 'PAYTOADDRESS' }] } }));
  assert.equal((answer[0]!.fields as Record<string, unknown>).code, 'ButtonRequest_SignTx');
  return fw.handle(msg('ButtonAck'));
}

describe('the double signs a transaction (SignTx, TxRequest, TxAck)', () => {
  it('Given honest amounts, When confirmed, Then TXFINISHED carries the transaction signed by the key at the path', () => {
    const [finished] = sign(50_000n, 50_000n);
    assert.equal(finished!.fields.request_type, 'TXFINISHED');
    const tx = Transaction.fromHex((finished!.fields.serialized as { serialized_tx: string }).serialized_tx);
    assert.equal(tx.outs[0]!.value, 49_000n);
    assert.equal(Buffer.from(tx.ins[0]!.script).subarray(-33).toString('hex'), pubkey.toString('hex'));
  });
  it('Given an input amount the previous transaction does not pay, Then the device refuses (Failure_DataError)', () => {
    const [failure] = sign(60_000n, 50_000n);
    assert.equal(failure!.fields.code, 'Failure_DataError');
    assert.match(String(failure!.fields.message), /amount/);
  });
});
