/**
 * The transaction bytes, the txID and the signature against the reference's golden vectors (real
 * Nile testnet transactions and TRON's documentation vector), cited by the reference's source:
 * `mm2src/coins/eth/tron/tx_builder.rs` (`build_trx_transfer_golden_vector`,
 * `build_trc20_transfer_golden_vector`) and `mm2src/coins/eth/tron/sign.rs`
 * (`test_sign_tron_transaction_verifies_signer_and_rejects_tampered_digest`). The signature is
 * checked by recovery with ethers, not by our code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAddress, Signature, SigningKey } from 'ethers';
import { encodeRawTransaction, TronContractType, transferContract, type TronRawTransaction } from './tronProtobuf.ts';
import { trc20Transfer, trxTransfer, tronAddressBytes } from './tronTransfer.ts';
import { signTronTransaction, tronTxId } from './tronSign.ts';
import type { TaposBlock } from './tronNodeAnswers.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const block = (number: bigint, id: string, timestamp: bigint): TaposBlock => ({ number, id: Buffer.from(id, 'hex'), timestamp });
/** tron.rs `test_fixtures::nile_block_64687673`. */
const NILE_64687673 = block(64_687_673n, '0000000003db0e39901ce5715271b601b1c57055f5d8fa6a9fe3505eee560308', 1_770_522_369_000n);
const FROM = '0x23b00d15c601b30613bf5a3b2f72527c79cc08b6';
const TO = '0x8840e6c55b9ada326d211d818c34a994aeced808';

test('Given Nile block 64687673, when 1000 SUN are sent, then the raw bytes are the broadcast transaction (tx_builder.rs build_trx_transfer_golden_vector)', () => {
  const raw = trxTransfer(FROM, TO, 1000n, NILE_64687673);
  assert.equal(raw.timestamp, NILE_64687673.timestamp);
  assert.equal(raw.expiration, NILE_64687673.timestamp + 60_000n);
  const broadcast: TronRawTransaction = { ...raw, timestamp: 1_770_522_424_709n, expiration: 1_770_522_483_000n };
  assert.equal(
    hex(encodeRawTransaction(broadcast)),
    '0a020e392208901ce5715271b60140b8b2f4dac3335a66080112620a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412310a154123b00d15c601b30613bf5a3b2f72527c79cc08b61215418840e6c55b9ada326d211d818c34a994aeced80818e8077085ebf0dac333',
  );
});

test('Given Nile block 64837309, when 2,380,000 token units are sent with fee_limit 2,172,000, then the raw bytes are the broadcast TRC20 transfer (tx_builder.rs build_trc20_transfer_golden_vector)', () => {
  const nile = block(64_837_309n, '0000000003dd56bde31bf1375e25873dd2d6dea05d81e126be272f42e4c27c26', 1_770_972_777_000n);
  const raw = trc20Transfer('0x3c5568f418ee30c71f61813a23ef1f92fb1c434c', '0xeca9bc828a3005b9a3b909f2cc5c2a54794de05f', '0x3ed853b5cddf63533c4e6703b27feb34ff9063b3', 2_380_000n, 2_172_000n, nile);
  const broadcast: TronRawTransaction = { ...raw, timestamp: 1_770_972_831_784n, expiration: 1_770_972_891_000n };
  assert.equal(
    hex(encodeRawTransaction(broadcast)),
    '0a0256bd2208e31bf1375e25873d40f88ed7b1c5335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a15413c5568f418ee30c71f61813a23ef1f92fb1c434c121541eca9bc828a3005b9a3b909f2cc5c2a54794de05f2244a9059cbb0000000000000000000000003ed853b5cddf63533c4e6703b27feb34ff9063b300000000000000000000000000000000000000000000000000000000002450e070a8c0d3b1c5339001e0c88401',
  );
});

test('Given the documentation transfer, when it is signed with key 0x01…01, then the txID is its SHA-256 and ethers recovers the signer over it (sign.rs)', async () => {
  // TRON developer docs' TransferContract vector: 100 SUN, ref 0x0add / 6c2763abadf9ed29.
  const raw: TronRawTransaction = {
    refBlockBytes: Buffer.from('0add', 'hex'),
    refBlockHash: Buffer.from('6c2763abadf9ed29', 'hex'),
    expiration: 1_581_308_685_000n,
    contract: { type: TronContractType.TransferContract, value: transferContract(tronAddressBytes(TO), tronAddressBytes('0xd3136787e667d1e055d2cd5db4b5f6c880563049'), 100n) },
    timestamp: 1_581_308_626_092n,
    feeLimit: 0n,
  };
  assert.equal(hex(tronTxId(raw)), '9f62a65d0616c749643c4e2620b7877efd0f04dd5b2b4cd14004570d39858d7e');
  const key = new SigningKey(`0x${'01'.repeat(32)}`);
  const signed = await signTronTransaction(raw, async (digest) => Buffer.from(key.sign(digest).serialized.slice(2), 'hex'));
  assert.equal(signed.txHash, '9f62a65d0616c749643c4e2620b7877efd0f04dd5b2b4cd14004570d39858d7e');
  // Transaction{1: raw, 2: sig}: the signature is the last 65 bytes, v normalised to 0/1.
  const bytes = Buffer.from(signed.txHex, 'hex');
  const sig = bytes.subarray(bytes.length - 65);
  assert.ok(sig[64] === 0 || sig[64] === 1);
  assert.equal(bytes.subarray(bytes.length - 67, bytes.length - 65).toString('hex'), '1241');
  const signature = Signature.from({ r: `0x${hex(sig.subarray(0, 32))}`, s: `0x${hex(sig.subarray(32, 64))}`, v: 27 + sig[64]! });
  const recovered = computeAddress(SigningKey.recoverPublicKey(`0x${signed.txHash}`, signature));
  assert.equal(recovered, computeAddress(key.publicKey));
  const tampered = tronTxId({ ...raw, timestamp: raw.timestamp + 1n });
  assert.notEqual(computeAddress(SigningKey.recoverPublicKey(tampered, signature)), recovered);
});

test('Given a signer answering v = 5, when signing, then it is refused rather than broadcast broken', async () => {
  const raw = trxTransfer(FROM, TO, 1n, NILE_64687673);
  await assert.rejects(signTronTransaction(raw, async () => new Uint8Array(65).fill(5)), /recovery id 5/);
  await assert.rejects(signTronTransaction(raw, async () => new Uint8Array(64)), /65 bytes/);
});
