/**
 * Signs a planned UTXO transaction with a key that signs digests (Iguana or HD: the private key
 * stays with the key provider). Each input by the script it spends: P2PKH (scriptSig signature and
 * key), P2PK (signature only), P2WPKH (witness, BIP143 digest). Fork-id coins (BCH) sign every
 * non-segwit input with the BIP143-style digest and SIGHASH_ALL|fork_id, as the reference does
 * (KDF `utxo_signer`, `mm2_bitcoin/script/src/sign.rs`).
 */
import { payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import type { TxPlan } from './txPlan.ts';

/** A key that signs 32-byte digests: 64 bytes r‖s with low s. */
export interface DigestSigner {
  /** The sender's compressed public key (33 bytes). */
  readonly publicKey: Uint8Array;
  signDigest(digest: Uint8Array): Promise<Uint8Array>;
}

export interface SigningParams {
  readonly txVersion: number;
  readonly forkId: number;
  readonly forkIdSignatures: boolean;
  /** The reference's lock time: now, in seconds (inputs are final, so it never delays anything). */
  readonly lockTime: number;
}

export interface SignedTx {
  /** Serialized with witnesses when any input has one. */
  readonly hex: string;
  /** The transaction id (big-endian hex). */
  readonly txid: string;
}

const SEQUENCE_FINAL = 0xffffffff;
const SIGHASH_ALL = 0x01;

/** The unsigned transaction of `plan` (empty scriptSigs), as both signers start from it. */
export function unsignedTx(plan: TxPlan, params: Pick<SigningParams, 'txVersion' | 'lockTime'>): Transaction {
  const tx = new Transaction();
  tx.version = params.txVersion;
  tx.locktime = params.lockTime;
  for (const input of plan.inputs) tx.addInput(Buffer.from(input.txid, 'hex').reverse(), input.vout, SEQUENCE_FINAL);
  for (const output of plan.outputs) tx.addOutput(output.script, output.value);
  return tx;
}

type ScriptKind = 'p2pkh' | 'p2pk' | 'p2wpkh';

/** What locks an input of this key: its kind, or an error for a script the key cannot spend. */
function kindOf(script: Uint8Array, publicKey: Uint8Array): ScriptKind {
  const pubkey = Buffer.from(publicKey);
  const same = (other: Uint8Array | undefined) => other !== undefined && Buffer.from(other).equals(Buffer.from(script));
  if (same(payments.p2pkh({ pubkey }).output)) return 'p2pkh';
  if (same(payments.p2wpkh({ pubkey }).output)) return 'p2wpkh';
  if (same(payments.p2pk({ pubkey }).output)) return 'p2pk';
  throw new Error('an input is not locked to the sender key');
}

/** Signs every input of `plan` with `signer`. */
export async function signTx(plan: TxPlan, params: SigningParams, signer: DigestSigner): Promise<SignedTx> {
  const tx = unsignedTx(plan, params);
  const pubkey = Buffer.from(signer.publicKey);
  const p2pkhCode = payments.p2pkh({ pubkey }).output!;
  const hashType = SIGHASH_ALL | (params.forkIdSignatures ? params.forkId : 0);
  const kinds = plan.inputs.map((input) => kindOf(input.script, signer.publicKey)); // every input checked before any signature
  for (const [index, input] of plan.inputs.entries()) {
    const kind = kinds[index]!;
    const scriptCode = kind === 'p2pk' ? Buffer.from(input.script) : p2pkhCode;
    const digest =
      kind === 'p2wpkh' || params.forkIdSignatures
        ? tx.hashForWitnessV0(index, scriptCode, input.value, hashType)
        : tx.hashForSignature(index, scriptCode, hashType);
    const signature = derSignature(await signer.signDigest(digest), hashType);
    if (kind === 'p2wpkh') tx.setWitness(index, [signature, pubkey]);
    else tx.setInputScript(index, btcScript.compile(kind === 'p2pk' ? [signature] : [signature, pubkey]));
  }
  return { hex: tx.toHex(), txid: tx.getId() };
}

/** DER signature with its sighash byte (bitcoinjs refuses the fork-id flag, so the byte is set after). */
export function derSignature(compact: Uint8Array, hashType: number): Buffer {
  const encoded = Buffer.from(btcScript.signature.encode(Buffer.from(compact), SIGHASH_ALL));
  encoded[encoded.length - 1] = hashType & 0xff;
  return encoded;
}
