/**
 * Deploys TestNft721.sol and TestNft1155.sol (our minimal ERC721 and ERC1155) on a devnet through
 * its owned deployer, and mints or moves tokens with real transactions, so that holdings exist only
 * as the chain's Transfer / TransferSingle / TransferBatch logs say.
 */
import { fileURLToPath } from 'node:url';
import { getAddress, getCreateAddress, Interface, toQuantity } from 'ethers';
import { compileSolidityFile } from './solidity.ts';
import type { EvmRequest } from './inProcessEvm.ts';

const source = (file: string) => fileURLToPath(new URL(`./contracts/${file}`, import.meta.url));

export interface TestNfts {
  /** EIP-55 addresses of the two contracts. */
  readonly erc721: string;
  readonly erc1155: string;
  /** ERC721 `mint(to, id)`. */
  mint721(to: string, id: bigint): Promise<void>;
  /** ERC721 `transferFrom(deployer, to, id)` of a token the deployer holds. */
  give721(to: string, id: bigint): Promise<void>;
  /** ERC1155 `mint(to, id, amount)` (a `TransferSingle`). */
  mint1155(to: string, id: bigint, amount: bigint): Promise<void>;
  /** ERC1155 `mintBatch(to, ids, amounts)` (a `TransferBatch`). */
  mintBatch1155(to: string, ids: readonly bigint[], amounts: readonly bigint[]): Promise<void>;
  /** ERC1155 `safeTransferFrom(deployer, to, id, amount)` of tokens the deployer holds. */
  give1155(to: string, id: bigint, amount: bigint): Promise<void>;
}

/** Deploys both contracts from `deployer` (an account the node owns). Each transaction is its own block. */
export async function deployTestNfts(request: EvmRequest, deployer: string): Promise<TestNfts> {
  const [a721, a1155] = await Promise.all([compileSolidityFile(source('TestNft721.sol')), compileSolidityFile(source('TestNft1155.sol'))]);
  const i721 = new Interface(a721.abi);
  const i1155 = new Interface(a1155.abi);
  let nonce = Number(await request('eth_getTransactionCount', [deployer, 'pending']));
  const send = async (tx: { to?: string; data: string }) => {
    await request('eth_sendTransaction', [{ from: deployer, nonce: toQuantity(nonce), ...tx }]);
    nonce += 1;
  };
  const erc721 = getCreateAddress({ from: deployer, nonce });
  await send({ data: a721.bytecode + i721.encodeDeploy(['Devnet NFT', 'DNFT']).slice(2) });
  const erc1155 = getCreateAddress({ from: deployer, nonce });
  await send({ data: a1155.bytecode });
  return {
    erc721,
    erc1155,
    mint721: (to, id) => send({ to: erc721, data: i721.encodeFunctionData('mint', [getAddress(to), id]) }),
    give721: (to, id) => send({ to: erc721, data: i721.encodeFunctionData('transferFrom', [deployer, getAddress(to), id]) }),
    mint1155: (to, id, amount) => send({ to: erc1155, data: i1155.encodeFunctionData('mint', [getAddress(to), id, amount]) }),
    mintBatch1155: (to, ids, amounts) => send({ to: erc1155, data: i1155.encodeFunctionData('mintBatch', [getAddress(to), ids, amounts]) }),
    give1155: (to, id, amount) => send({ to: erc1155, data: i1155.encodeFunctionData('safeTransferFrom', [deployer, getAddress(to), id, amount, '0x']) }),
  };
}
