/**
 * The deployless balance reader on a real chain, its answers checked against plain `eth_call` and
 * `eth_getBalance` of the same values and decoded with ethers' coder from the published shape of
 * `aggregate3`'s answer (not with the service's decoder).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder, Interface, toQuantity } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from './evmDevnet.ts';
import { CANONICAL_MULTICALL_ADDRESS } from './multicallContract.ts';
import { accountReads, deploylessCall, type DeploylessRead } from '../../infra/evm/multicall/deployless.ts';

const HOLDER = '0x00000000000000000000000000000000000a11ce';
const OTHER = '0x00000000000000000000000000000000000b0b00';
const REVERTER = '0x00000000000000000000000000000000000bad01';
const NO_CODE = '0x000000000000000000000000000000000000dEaD';
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function decimals() view returns (uint8)']);
const RESULTS = ['tuple(bool success, bytes returnData)[]'];

describe('the deployless balance reader', () => {
  let devnet: EvmDevnet;
  let bare: EvmDevnet;
  let tokens: string[];

  before(async () => {
    const spec = { fund: [{ address: HOLDER, wei: 7n }, { address: OTHER, wei: 9n }], tokens: [{ symbol: 'AAA', decimals: 6, mint: [{ address: HOLDER, amount: 1234n }] }, { symbol: 'BBB', decimals: 18, mint: [{ address: OTHER, amount: 5n }] }] };
    [devnet, bare] = await Promise.all([startEvmDevnet(spec), startEvmDevnet({ ...spec, multicall: false })]);
    for (const net of [devnet, bare]) await net.request('hardhat_setCode', [REVERTER, '0x60006000fd']);
    tokens = devnet.tokens.map((t) => t.address);
  });
  after(() => Promise.all([devnet?.stop(), bare?.stop()]));

  /** Runs the reader through `eth_call` without `to`; the results decoded by ethers. */
  async function run(net: EvmDevnet, reads: readonly DeploylessRead[], probe?: string, gas?: number) {
    const raw = (await net.request('eth_call', [{ data: deploylessCall(reads, probe), ...(gas === undefined ? {} : { gas: toQuantity(gas) }) }, 'latest'])) as string;
    return (AbiCoder.defaultAbiCoder().decode(RESULTS, raw)[0] as { success: boolean; returnData: string }[]).map((r) => ({ success: r.success, returnData: r.returnData }));
  }
  const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;
  const plainCall = async (to: string, data: string) => (await bare.request('eth_call', [{ to, data }, 'latest'])) as string;
  const decimalsOf = (list: readonly string[]): DeploylessRead[] => list.map((token) => ({ kind: 'decimals', token }));

  test('Given decimals, native balances and balanceOf of two owners, When read, Then each comes in order, as plain calls answer them', async () => {
    const results = await run(bare, [...decimalsOf(tokens), ...accountReads([HOLDER, OTHER], tokens)]);
    const expected = [
      ...(await Promise.all(tokens.map((t) => plainCall(t, erc20.encodeFunctionData('decimals', []))))),
      ...(
        await Promise.all(
          [HOLDER, OTHER].map(async (owner) => [
            word(BigInt((await bare.request('eth_getBalance', [owner, 'latest'])) as string)),
            ...(await Promise.all(tokens.map((t) => plainCall(t, erc20.encodeFunctionData('balanceOf', [owner]))))),
          ]),
        )
      ).flat(),
    ];
    assert.deepEqual(results, expected.map((returnData) => ({ success: true, returnData })));
    assert.equal(BigInt(results[3]!.returnData), 1234n, 'HOLDER holds 1234 AAA');
    assert.equal(BigInt(results[2]!.returnData), 7n, 'HOLDER has 7 wei');
    assert.equal(BigInt(results[7]!.returnData), 5n, 'OTHER holds 5 BBB');
  });

  test('Given a reverting token and one with no code, When read, Then the first fails and the second succeeds with no data, as plain calls do', async () => {
    const results = await run(bare, accountReads([HOLDER], [REVERTER, NO_CODE]));
    assert.deepEqual(results.slice(1), [{ success: false, returnData: '0x' }, { success: true, returnData: '0x' }]);
    await assert.rejects(plainCall(REVERTER, erc20.encodeFunctionData('balanceOf', [HOLDER])));
    assert.equal(await plainCall(NO_CODE, erc20.encodeFunctionData('balanceOf', [HOLDER])), '0x');
  });

  test('Given too little gas for every read, When read, Then it returns the reads it made, never failing', async () => {
    const reads = accountReads(Array.from({ length: 20 }, () => HOLDER), tokens);
    const full = await run(bare, reads);
    const cut = await run(bare, reads, undefined, 1_500_000);
    assert.ok(cut.length > 0 && cut.length < 60, `${cut.length} reads`);
    assert.deepEqual(cut, full.slice(0, cut.length));
    assert.deepEqual(await run(bare, reads, undefined, 300_000), []);
  });

  test('Given a probe, When read, Then a working Multicall3 answers aggregate3([]) with offset 0x20, and a chain without one answers nothing', async () => {
    const reads = accountReads([HOLDER], []);
    assert.deepEqual((await run(devnet, reads, CANONICAL_MULTICALL_ADDRESS))[0], { success: true, returnData: word(32n) });
    assert.deepEqual((await run(bare, reads, CANONICAL_MULTICALL_ADDRESS))[0], { success: true, returnData: '0x' });
    assert.deepEqual((await run(bare, reads, REVERTER))[0], { success: false, returnData: '0x' });
    assert.equal((await run(bare, reads, REVERTER)).length, 2, 'the probe, then the read');
    assert.deepEqual(await run(devnet, reads, CANONICAL_MULTICALL_ADDRESS, 300_000), [], 'too little gas for the probe: nothing at all');
  });
});
