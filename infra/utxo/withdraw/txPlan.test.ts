import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { payments } from 'bitcoinjs-lib';
import { chargedSize, feeForSize, planTx, type TxPlanRequest, type Unspent } from './txPlan.ts';

const me = payments.p2pkh({ hash: Buffer.alloc(20, 1) }).output!;
const them = payments.p2pkh({ hash: Buffer.alloc(20, 2) }).output!;
const unspent = (value: bigint, n = 0): Unspent => ({ txid: n.toString(16).padStart(64, '0'), vout: 0, value, script: me });
const request = (over: Partial<TxPlanRequest>): TxPlanRequest => ({
  unspents: [unspent(1_000_000_000n)],
  outputs: [{ script: them, value: 100_000_000n }],
  deductFeeFromFirst: false,
  changeScript: me,
  feeRate: { kind: 'perKb', rate: 10_000_000n }, // 0.1 coin per kB, as the reference's withdraw tests
  dust: 1000n,
  segwitSender: false,
  ...over,
});

describe('chargedSize', () => {
  test('Given P2PKH inputs, When sized, Then each signed input counts 148 bytes (the worst case 1-in-2-out is 226)', () => {
    assert.equal(chargedSize(1, [{ script: them, value: 1n }, { script: me, value: 1n }], false), 226);
    assert.equal(chargedSize(1, [{ script: them, value: 1n }], false), 192);
    assert.equal(chargedSize(2, [{ script: them, value: 1n }], false), 192 + 148);
  });
  test('Given a segwit sender, When sized, Then the witness counts a quarter (the reference formula)', () => {
    const wpkh = payments.p2wpkh({ hash: Buffer.alloc(20, 1) }).output!;
    // base 4+1+41+1+31+31+4 = 113; total 113+4+108 = 225; (3*113+225)/4 = 141
    assert.equal(chargedSize(1, [{ script: wpkh, value: 1n }, { script: wpkh, value: 1n }], true), 141);
  });
});

describe('feeForSize', () => {
  test('per kB is floored, per started kB rounds the size up, the relay rate is a floor', () => {
    assert.equal(feeForSize({ kind: 'perKb', rate: 1000n }, 226), 226n);
    assert.equal(feeForSize({ kind: 'perKb', rate: 999n }, 226), 225n);
    assert.equal(feeForSize({ kind: 'perStartedKb', rate: 1000n }, 1001), 2000n);
    assert.equal(feeForSize({ kind: 'perKb', rate: 1000n }, 226, 10_000n), 2260n);
  });
});

describe('planTx', () => {
  test('Given one large unspent, When 1 coin is sent at 0.1/kB, Then the fee is sized with the change output and change returns to the sender', () => {
    const plan = planTx(request({}));
    assert.ok('inputs' in plan);
    assert.equal(plan.fee, 2_260_000n); // 0.1 × 226 / 1000
    assert.equal(plan.outputs.length, 2);
    assert.equal(plan.outputs[1]!.value, 1_000_000_000n - 100_000_000n - 2_260_000n);
    assert.equal(plan.received, plan.outputs[1]!.value);
    assert.equal(plan.spent, 1_000_000_000n);
  });

  test('Given several unspents, When planned, Then the smallest are taken first until amount and fee are covered', () => {
    const plan = planTx(request({ unspents: [unspent(500n * 10n ** 6n, 1), unspent(60n * 10n ** 6n, 2), unspent(50n * 10n ** 6n, 3)] }));
    assert.ok('inputs' in plan);
    assert.deepEqual(plan.inputs.map((i) => i.value), [50_000_000n, 60_000_000n]);
    assert.equal(plan.fee, 10_000_000n * BigInt(226 + 148) / 1000n);
  });

  test('Given the amount equals balance minus the no-change fee, When planned, Then there is no change and the fee is the rest', () => {
    const plan = planTx(request({ outputs: [{ script: them, value: 1_000_000_000n - 1_920_000n }] }));
    assert.ok('inputs' in plan);
    assert.equal(plan.outputs.length, 1);
    assert.equal(plan.fee, 1_920_000n);
    assert.equal(plan.received, 0n);
  });

  test('Given change below dust, When planned, Then the change goes to the miner', () => {
    const plan = planTx(request({ outputs: [{ script: them, value: 1_000_000_000n - 1_920_000n - 999n }] }));
    assert.ok('inputs' in plan);
    assert.equal(plan.outputs.length, 1);
    assert.equal(plan.fee, 1_920_999n);
  });

  test('Given max, When planned, Then the fee comes out of the one output and nothing returns', () => {
    const plan = planTx(request({ outputs: [{ script: them, value: 1_000_000_000n }], deductFeeFromFirst: true }));
    assert.ok('inputs' in plan);
    assert.equal(plan.outputs[0]!.value, 1_000_000_000n - 1_920_000n);
    assert.equal(plan.fee, 1_920_000n);
  });

  test('Given too little, When planned, Then NotEnoughUnspents names the sum and what is required with the fee', () => {
    assert.deepEqual(planTx(request({ unspents: [unspent(100_000_000n)] })), { failure: 'NotEnoughUnspents', available: 100_000_000n, required: 100_000_000n + 1_920_000n });
  });

  test('Given no unspents, When planned, Then NoUnspents requires the amount', () => {
    assert.deepEqual(planTx(request({ unspents: [] })), { failure: 'NoUnspents', required: 100_000_000n });
  });

  test('Given an output below dust, When planned, Then OutputBelowDust', () => {
    assert.deepEqual(planTx(request({ outputs: [{ script: them, value: 999n }] })), { failure: 'OutputBelowDust', value: 999n, dust: 1000n });
  });

  test('Given max of less than fee plus dust, When planned, Then FeeExceedsOutput', () => {
    const plan = planTx(request({ unspents: [unspent(1_920_500n)], outputs: [{ script: them, value: 1_920_500n }], deductFeeFromFirst: true }));
    assert.deepEqual(plan, { failure: 'FeeExceedsOutput', outputValue: 1_920_500n, required: 1_921_000n });
  });

  test('Given a gas fee (QRC20), When planned, Then the inputs pay it beside the miner fee, which excludes it', () => {
    const call = Uint8Array.from([0x54, 0x6a]); // any script: its value is 0
    const plan = planTx(request({ outputs: [{ script: call, value: 0n }], gasFee: 4_000_000n, dust: 0n }));
    assert.ok('inputs' in plan);
    const change = plan.outputs[1]!.value;
    assert.equal(1_000_000_000n - change - 4_000_000n, plan.fee);
  });
});
