import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder } from 'ethers';
import { compileDeployless } from '../../../devnet/evm/deploylessContract.ts';
import { DEPLOYLESS_BALANCES_CODE } from './deploylessCode.ts';
import { deploylessCall, deploylessReadCount, isMulticallAnswer } from './deployless.ts';

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
  const TYPES = ['address', 'address[]', 'address[]', 'address[]', 'uint256', 'uint256'];

  test('Given a query with a probe, When encoded, Then it is the creation code and what ethers encodes for the constructor', () => {
    const query = { probe: PROBE, decimalsOf: [A], owners: [OWNER, B], tokens: [A, B] };
    const expected = coder.encode(TYPES, [PROBE, [A], [OWNER, B], [A, B], 3, 150]).slice(2);
    assert.equal(deploylessCall(query, 3, 150), `${DEPLOYLESS_BALANCES_CODE}${expected}`);
    assert.equal(deploylessReadCount(query), 1 + 1 + 2 * 3);
  });

  test('Given no probe and empty lists, When encoded, Then the probe is the zero address', () => {
    const expected = coder.encode(TYPES, [ZERO, [], [], [], 0, 0]).slice(2);
    assert.equal(deploylessCall({ decimalsOf: [], owners: [], tokens: [] }, 0, 0), `${DEPLOYLESS_BALANCES_CODE}${expected}`);
  });

  test('Given a malformed address, When encoded, Then it throws', () => {
    assert.throws(() => deploylessCall({ decimalsOf: [], owners: ['0x1234'], tokens: [] }, 0, 1), TypeError);
  });

  test('Given probe answers, When read, Then only a successful answer starting with offset 0x20 is a Multicall3', () => {
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    assert.equal(isMulticallAnswer({ success: true, returnData: word(32) }), true);
    assert.equal(isMulticallAnswer({ success: false, returnData: word(32) }), false);
    assert.equal(isMulticallAnswer({ success: true, returnData: '0x' }), false, 'no code answers nothing');
    assert.equal(isMulticallAnswer({ success: true, returnData: word(64) }), false);
  });
});
