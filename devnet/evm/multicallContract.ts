/**
 * Puts the project's own Multicall3-compatible contract (contracts/BalanceMulticall.sol) on a devnet
 * at the canonical Multicall3 address, as on most public EVM chains.
 */
import { fileURLToPath } from 'node:url';
import { compileSolidityFile, type CompiledContract } from './solidity.ts';
import type { EvmRequest } from './inProcessEvm.ts';

/** Where Multicall3 lives on most EVM chains (the same address on each). */
export const CANONICAL_MULTICALL_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

const SOURCE = fileURLToPath(new URL('./contracts/BalanceMulticall.sol', import.meta.url));

/** Compiles BalanceMulticall.sol (cached on disk, see solidity.ts). */
export function compileMulticall(): Promise<CompiledContract> {
  return compileSolidityFile(SOURCE, 'BalanceMulticall');
}

/**
 * Installs the contract's runtime code at `address`. The runtime code is what its creation code
 * returns, so an `eth_call` of the creation code yields it without a transaction (the deployer's
 * nonce, and so every token address, stays as it was).
 */
export async function installMulticall(request: EvmRequest, artifact: CompiledContract, address = CANONICAL_MULTICALL_ADDRESS): Promise<void> {
  const runtime = await request('eth_call', [{ data: artifact.bytecode }, 'latest']);
  if (typeof runtime !== 'string' || runtime.length <= 2) throw new Error('BalanceMulticall creation code returned no runtime code');
  await request('hardhat_setCode', [address, runtime]);
}
