import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import { Signature, SigningKey } from 'ethers';
import { countingSigner } from '../../../devnet/testkits/digestSigner.ts';
import { signTx } from './signTx.ts';
import type { TxPlan } from './txPlan.ts';

const sha256d = (data: Buffer) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

/** Whether `der` (with its sighash byte) is `pubkey`'s signature of `digest`. */
function verifies(der: Uint8Array, digest: Buffer, pubkey: Buffer): boolean {
  const { signature } = btcScript.signature.decode(Buffer.concat([Buffer.from(der.subarray(0, -1)), Buffer.from([0x01])]));
  const [r, s] = [`0x${Buffer.from(signature.subarray(0, 32)).toString('hex')}`, `0x${Buffer.from(signature.subarray(32)).toString('hex')}`];
  const expected = SigningKey.computePublicKey(pubkey, true);
  return ([27, 28] as const).some((v) => SigningKey.computePublicKey(SigningKey.recoverPublicKey(digest, Signature.from({ r, s, v })), true) === expected);
}

describe('signTx', () => {
  const signer = countingSigner(Buffer.alloc(32, 9));
  const pubkey = Buffer.from(signer.publicKey);
  const p2pkh = payments.p2pkh({ pubkey }).output!;
  const plan: TxPlan = {
    inputs: [{ txid: 'ab'.repeat(32), vout: 1, value: 50_000n, script: p2pkh }],
    outputs: [{ script: payments.p2pkh({ hash: Buffer.alloc(20, 3) }).output!, value: 40_000n }],
    fee: 10_000n,
    spent: 50_000n,
    received: 0n,
  };

  test('Given a fork-id coin (BCH), When signed, Then the sighash byte is 0x41 and the signature verifies over the BIP143-style digest written out by hand', async () => {
    const signed = await signTx(plan, { txVersion: 2, forkId: 0x40, forkIdSignatures: true, lockTime: 1_700_000_000 }, signer);
    const tx = Transaction.fromHex(signed.hex);
    const [der, key] = btcScript.decompile(tx.ins[0]!.script) as [Uint8Array, Uint8Array];
    assert.equal(der.at(-1), 0x41);
    assert.deepEqual(Buffer.from(key), pubkey);
    const outpoint = Buffer.concat([Buffer.from('ab'.repeat(32), 'hex').reverse(), u32(1)]);
    const output = Buffer.concat([u64(40_000n), Buffer.from([plan.outputs[0]!.script.length]), Buffer.from(plan.outputs[0]!.script)]);
    const preimage = Buffer.concat([
      u32(2),
      sha256d(outpoint),
      sha256d(u32(0xffffffff)),
      outpoint,
      Buffer.from([p2pkh.length]),
      Buffer.from(p2pkh),
      u64(50_000n),
      u32(0xffffffff),
      sha256d(output),
      u32(1_700_000_000),
      u32(0x41),
    ]);
    assert.ok(verifies(der, sha256d(preimage), pubkey));
  });

  test('Given a plain coin, When signed, Then SIGHASH_ALL over the legacy digest, and a P2WPKH input gets a witness', async () => {
    const legacy = Transaction.fromHex((await signTx(plan, { txVersion: 1, forkId: 0, forkIdSignatures: false, lockTime: 0 }, signer)).hex);
    const [der] = btcScript.decompile(legacy.ins[0]!.script) as [Uint8Array];
    assert.equal(der.at(-1), 0x01);
    assert.ok(verifies(der, Buffer.from(legacy.hashForSignature(0, p2pkh, 1)), pubkey));
    const wpkh = payments.p2wpkh({ pubkey }).output!;
    const segwit = Transaction.fromHex((await signTx({ ...plan, inputs: [{ ...plan.inputs[0]!, script: wpkh }] }, { txVersion: 2, forkId: 0, forkIdSignatures: false, lockTime: 0 }, signer)).hex);
    assert.equal(segwit.ins[0]!.script.length, 0);
    assert.ok(verifies(segwit.ins[0]!.witness[0]!, Buffer.from(segwit.hashForWitnessV0(0, p2pkh, 50_000n, 1)), pubkey));
  });

  test('an input locked to another key is refused before any signature', async () => {
    const other = countingSigner(Buffer.alloc(32, 8));
    await assert.rejects(signTx(plan, { txVersion: 1, forkId: 0, forkIdSignatures: false, lockTime: 0 }, other), /not locked to the sender key/);
    assert.equal(other.signed, 0);
  });
});
