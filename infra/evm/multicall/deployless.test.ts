import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder } from 'ethers';
import { compileDeployless } from '../../../devnet/evm/deploylessContract.ts';
import { DEPLOYLESS_BALANCES_CODE } from './deploylessCode.ts';
import { accountReads, deploylessCall, deploylessChunks, isMulticallAnswer } from './deployless.ts';

const A = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const B = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const OWNER = '0xf5c3bf03cba4e343484588932e423a7c8bff102d';
const PROBE = '0xcA11bde05977b3631167028862bE2a173976CA11';
const ZERO = '0x0000000000000000000000000000000000000000';

describe('deployless creation code', () => {
  test('Given the contract source, When compiled with the pinned solc, Then the product constant is its creation code', async () => {
    const compiled = await compileDeployless();
    assert.equal(DEPLOYLESS_BALANCES_CODE, compiled.bytecode, 'run `npx tsx scripts/deploylessCode.ts` after changing DeploylessBalances.sol');
  });
});

describe('deployless call data', () => {
  const coder = AbiCoder.defaultAbiCoder();
  const TYPES = ['address', 'address[]', 'uint256[]'];
  /** A read's word as the contract reads it: kind in the top byte, owner index in the next two below the address. */
  const read = (kind: number, address: string, owner = 0) => (BigInt(kind) << 248n) | (BigInt(owner) << 160n) | BigInt(address);

  test('Given every kind of read and a probe, When encoded, Then it is the creation code and what ethers encodes for the constructor', () => {
    const reads = [
      { kind: 'decimals', token: A },
      { kind: 'native', address: OWNER },
      { kind: 'balanceOf', token: A, owner: OWNER },
      { kind: 'balanceOf', token: B, owner: B },
      { kind: 'balanceOf', token: B, owner: OWNER },
    ] as const;
    const expected = coder.encode(TYPES, [PROBE, [OWNER, B], [read(1, A), read(0, OWNER), read(2, A, 0), read(2, B, 1), read(2, B, 0)]]).slice(2);
    assert.equal(deploylessCall(reads, PROBE), `${DEPLOYLESS_BALANCES_CODE}${expected}`);
  });

  test('Given no probe and no reads, When encoded, Then the probe is the zero address', () => {
    assert.equal(deploylessCall([]), `${DEPLOYLESS_BALANCES_CODE}${coder.encode(TYPES, [ZERO, [], []]).slice(2)}`);
  });

  test('Given a malformed address, When encoded, Then it throws', () => {
    assert.throws(() => deploylessCall([{ kind: 'native', address: '0x1234' }]), TypeError);
  });

  test('Given more reads than a chunk, When split for one round, Then the probe rides in the first chunk and no chunk answers more than 150 results', () => {
    const reads = accountReads([OWNER], Array.from({ length: 300 }, () => A));
    const chunks = deploylessChunks(reads, PROBE);
    assert.deepEqual(chunks.map((c) => c.count), [150, 150, 2]);
    assert.equal(chunks[0]!.data, deploylessCall(reads.slice(0, 149), PROBE));
    assert.equal(chunks[2]!.data, deploylessCall(reads.slice(299)));
    assert.deepEqual(deploylessChunks([], PROBE).map((c) => c.count), [1]);
    assert.deepEqual(deploylessChunks(reads.slice(0, 150)).map((c) => c.count), [150]);
  });

  test('Given probe answers, When read, Then only a successful answer starting with offset 0x20 is a Multicall3', () => {
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    assert.equal(isMulticallAnswer({ success: true, returnData: word(32) }), true);
    assert.equal(isMulticallAnswer({ success: false, returnData: word(32) }), false);
    assert.equal(isMulticallAnswer({ success: true, returnData: '0x' }), false, 'no code answers nothing');
    assert.equal(isMulticallAnswer({ success: true, returnData: word(64) }), false);
  });
});
