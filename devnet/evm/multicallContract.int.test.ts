import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from './evmDevnet.ts';
import { CANONICAL_MULTICALL_ADDRESS } from './multicallContract.ts';

const HOLDER = '0x00000000000000000000000000000000000a11ce';
/** Multicall3's published ABI (the functions the service uses), written independently of our contract. */
const multicall3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function getBlockNumber() view returns (uint256 blockNumber)',
]);
const erc20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function mint(address,uint256)']);

describe('the devnet multicall contract', () => {
  let devnet: EvmDevnet;
  let bare: EvmDevnet;
  const call = (net: EvmDevnet, data: string) => net.request('eth_call', [{ to: CANONICAL_MULTICALL_ADDRESS, data }, 'latest']) as Promise<string>;

  before(async () => {
    [devnet, bare] = await Promise.all([
      startEvmDevnet({ fund: [{ address: HOLDER, wei: 7n }], tokens: [{ symbol: 'AAA', decimals: 6, mint: [{ address: HOLDER, amount: 1234n }] }] }),
      startEvmDevnet({ multicall: false }),
    ]);
  });
  after(() => Promise.all([devnet?.stop(), bare?.stop()]));

  test('has Multicall3\'s selectors (published values)', () => {
    assert.equal(multicall3.getFunction('aggregate3')!.selector, '0x82ad56cb');
    assert.equal(multicall3.getFunction('getEthBalance')!.selector, '0x4d2301cc');
    assert.equal(multicall3.getFunction('getBlockNumber')!.selector, '0x42cbb15c');
  });

  test('is at the canonical address, and absent from a devnet started without it', async () => {
    assert.equal(devnet.multicall, CANONICAL_MULTICALL_ADDRESS);
    assert.ok(((await devnet.request('eth_getCode', [CANONICAL_MULTICALL_ADDRESS, 'latest'])) as string).length > 2);
    assert.equal(bare.multicall, undefined);
    assert.equal(await bare.request('eth_getCode', [CANONICAL_MULTICALL_ADDRESS, 'latest']), '0x');
  });

  test('aggregate3 reports each call, a failing one included when it may fail', async () => {
    const token = devnet.tokens[0]!.address;
    const data = multicall3.encodeFunctionData('aggregate3', [
      [
        { target: CANONICAL_MULTICALL_ADDRESS, allowFailure: true, callData: multicall3.encodeFunctionData('getEthBalance', [HOLDER]) },
        { target: token, allowFailure: true, callData: erc20.encodeFunctionData('balanceOf', [HOLDER]) },
        { target: token, allowFailure: true, callData: erc20.encodeFunctionData('mint', [HOLDER, 1n]) }, // not the owner: reverts
        { target: HOLDER, allowFailure: true, callData: erc20.encodeFunctionData('balanceOf', [HOLDER]) }, // no code
      ],
    ]);
    const [results] = multicall3.decodeFunctionResult('aggregate3', await call(devnet, data)) as unknown as [[boolean, string][]];
    assert.equal(BigInt(results[0]![1]), 7n);
    assert.deepEqual([results[0]![0], results[1]![0], results[2]![0], results[3]![0]], [true, true, false, true]);
    assert.equal(BigInt(results[1]![1]), 1234n);
    assert.equal(results[3]![1], '0x');
  });

  test('aggregate3 reverts when a call that must not fail fails', async () => {
    const data = multicall3.encodeFunctionData('aggregate3', [
      [{ target: devnet.tokens[0]!.address, allowFailure: false, callData: erc20.encodeFunctionData('mint', [HOLDER, 1n]) }],
    ]);
    await assert.rejects(call(devnet, data));
  });

  test('getBlockNumber is the chain height', async () => {
    const height = BigInt((await devnet.request('eth_blockNumber', [])) as string);
    assert.equal(BigInt(await call(devnet, multicall3.encodeFunctionData('getBlockNumber', []))), height);
  });
});
