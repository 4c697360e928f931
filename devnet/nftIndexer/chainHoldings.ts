/**
 * Who holds which NFT, computed the way an indexer does it: from the chain's ERC721 `Transfer`
 * (three indexed topics: from, to, token id) and ERC1155 `TransferSingle` / `TransferBatch` logs,
 * read with `eth_getLogs` over every contract. ERC20 `Transfer`s (value not indexed) are not NFTs.
 */
import { AbiCoder, getAddress, id, keccak256, toBeHex, zeroPadValue } from 'ethers';
import type { EvmRequest } from '../evm/inProcessEvm.ts';

export const TRANSFER_721 = id('Transfer(address,address,uint256)');
export const TRANSFER_SINGLE = id('TransferSingle(address,address,address,uint256,uint256)');
export const TRANSFER_BATCH = id('TransferBatch(address,address,address,uint256[],uint256[])');

/** One NFT a holder has, with the blocks an indexer reports. */
export interface ChainHolding {
  /** Lowercase contract address. */
  readonly contract: string;
  readonly tokenId: bigint;
  readonly contractType: 'ERC721' | 'ERC1155';
  /** Lowercase holder address. */
  readonly holder: string;
  readonly amount: bigint;
  /** Block of the last transfer to or from this holder, and of the token's mint. */
  readonly blockNumber: number;
  readonly mintedAt: number;
  /** An indexer's id of the token (a hash of contract and id). */
  readonly tokenHash: string;
}

interface Log {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: string;
}

const ZERO = '0x0000000000000000000000000000000000000000';
const coder = AbiCoder.defaultAbiCoder();
const topicAddress = (topic: string) => getAddress(`0x${topic.slice(26)}`).toLowerCase();

/** Every NFT holding on the chain now, by contract, token id and holder (zero balances left out). */
export async function chainHoldings(request: EvmRequest): Promise<ChainHolding[]> {
  const logs = (await request('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [[TRANSFER_721, TRANSFER_SINGLE, TRANSFER_BATCH]] }])) as Log[];
  const balances = new Map<string, { contract: string; tokenId: bigint; type: 'ERC721' | 'ERC1155'; holder: string; amount: bigint; block: number }>();
  const minted = new Map<string, number>();
  const move = (contract: string, type: 'ERC721' | 'ERC1155', from: string, to: string, tokenId: bigint, amount: bigint, block: number) => {
    const token = `${contract},${tokenId}`;
    if (from === ZERO && !minted.has(token)) minted.set(token, block);
    for (const [holder, delta] of [[from, -amount], [to, amount]] as const) {
      if (holder === ZERO) continue;
      const key = `${token},${holder}`;
      const prev = balances.get(key) ?? { contract, tokenId, type, holder, amount: 0n, block };
      balances.set(key, { ...prev, amount: prev.amount + delta, block });
    }
  };
  for (const log of logs) {
    const contract = log.address.toLowerCase();
    const block = Number(log.blockNumber);
    const topic = log.topics[0];
    if (topic === TRANSFER_721 && log.topics.length === 4) {
      move(contract, 'ERC721', topicAddress(log.topics[1]!), topicAddress(log.topics[2]!), BigInt(log.topics[3]!), 1n, block);
    } else if (topic === TRANSFER_SINGLE) {
      const [tokenId, value] = coder.decode(['uint256', 'uint256'], log.data) as unknown as [bigint, bigint];
      move(contract, 'ERC1155', topicAddress(log.topics[2]!), topicAddress(log.topics[3]!), tokenId, value, block);
    } else if (topic === TRANSFER_BATCH) {
      const [ids, values] = coder.decode(['uint256[]', 'uint256[]'], log.data) as unknown as [bigint[], bigint[]];
      ids.forEach((tokenId, i) => move(contract, 'ERC1155', topicAddress(log.topics[2]!), topicAddress(log.topics[3]!), tokenId, values[i]!, block));
    }
  }
  return [...balances.values()]
    .filter((b) => b.amount > 0n)
    .map((b) => ({
      contract: b.contract,
      tokenId: b.tokenId,
      contractType: b.type,
      holder: b.holder,
      amount: b.amount,
      blockNumber: b.block,
      mintedAt: minted.get(`${b.contract},${b.tokenId}`) ?? b.block,
      tokenHash: keccak256(zeroPadValue(toBeHex(b.tokenId), 32) + b.contract.slice(2)).slice(2, 34),
    }));
}
