/** Deploys and mints TestToken.sol (our minimal ERC20) on a devnet through its owned deployer. */
import { fileURLToPath } from 'node:url';
import { getAddress, getCreateAddress, Interface, toQuantity } from 'ethers';
import { compileSolidityFile, type CompiledContract } from './solidity.ts';
import type { EvmRequest } from './inProcessEvm.ts';

/** A token to deploy: its metadata and who gets how much (in base units). */
export interface TestTokenSpec {
  symbol: string;
  /** Defaults to `<symbol> Test Token`. */
  name?: string;
  decimals: number;
  mint: { address: string; amount: bigint }[];
}

export interface DeployedTestToken {
  symbol: string;
  /** EIP-55 checksummed. */
  address: string;
  decimals: number;
}

const TEST_TOKEN_SOURCE = fileURLToPath(new URL('./contracts/TestToken.sol', import.meta.url));

/** Compiles TestToken.sol (cached on disk, see solidity.ts). */
export function compileTestToken(): Promise<CompiledContract> {
  return compileSolidityFile(TEST_TOKEN_SOURCE, 'TestToken');
}

/**
 * Sends every deploy transaction, then every mint, from `deployer` (an account the node owns).
 * With automine each transaction is its own block; a failed one throws (hardhat's default).
 * Addresses are derived from the deployer's nonce, so no receipt round trips are needed.
 */
export async function deployTestTokens(
  request: EvmRequest,
  deployer: string,
  specs: readonly TestTokenSpec[],
  artifact: CompiledContract,
): Promise<DeployedTestToken[]> {
  specs.forEach(assertValidSpec);
  const tokenInterface = new Interface(artifact.abi);
  let nonce = Number(await request('eth_getTransactionCount', [deployer, 'pending']));
  const send = async (tx: { to?: string; data: string }) => {
    await request('eth_sendTransaction', [{ from: deployer, nonce: toQuantity(nonce), ...tx }]);
    nonce += 1;
  };

  const deployed: DeployedTestToken[] = [];
  for (const spec of specs) {
    const address = getCreateAddress({ from: deployer, nonce });
    const constructorArgs = tokenInterface.encodeDeploy([spec.name ?? `${spec.symbol} Test Token`, spec.symbol, spec.decimals]);
    await send({ data: artifact.bytecode + constructorArgs.slice(2) });
    deployed.push({ symbol: spec.symbol, address, decimals: spec.decimals });
  }
  for (const [index, spec] of specs.entries()) {
    const token = deployed[index]!;
    for (const { address, amount } of spec.mint) {
      await send({ to: token.address, data: tokenInterface.encodeFunctionData('mint', [getAddress(address), amount]) });
    }
  }
  return deployed;
}

function assertValidSpec(spec: TestTokenSpec): void {
  if (spec.symbol.length === 0) throw new Error('token symbol must not be empty');
  if (!Number.isInteger(spec.decimals) || spec.decimals < 0 || spec.decimals > 255) {
    throw new Error(`token ${spec.symbol}: decimals must be an integer in 0..255, got ${spec.decimals}`);
  }
  for (const { address, amount } of spec.mint) {
    if (amount < 0n) throw new Error(`token ${spec.symbol}: negative mint amount for ${address}`);
  }
}
