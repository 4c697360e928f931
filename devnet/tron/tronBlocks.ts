/**
 * TRON block JSON built from the backing EVM chain's blocks. The TRON `blockID` is the block number
 * as 8 big-endian bytes followed by the last 24 bytes of the EVM block hash (java-tron's layout:
 * number ‖ tail of the header hash); timestamps are in milliseconds.
 */
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { evmToTronBase58, evmToTronHex } from './tronAddress.ts';

/** The fields read from `eth_getBlockByNumber`. */
interface EvmBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  transactionsRoot: string;
}

/** java-tron's block version at the time of writing (block_header.raw_data.version). */
const TRON_BLOCK_VERSION = 30;

/** `number ‖ hash[8..32]` as 64 hex digits. */
export function tronBlockId(number: bigint, evmHash: string): string {
  return number.toString(16).padStart(16, '0') + evmHash.slice(2 + 16);
}

/**
 * The block at `tag` (`latest` or a non-negative number) in java-tron's JSON shape, or `undefined`
 * when the chain has no such block. int64 fields are bigints (see tronJson.ts).
 */
export async function tronBlock(evm: EvmRequest, tag: 'latest' | bigint, visible: boolean): Promise<Record<string, unknown> | undefined> {
  const blockTag = tag === 'latest' ? 'latest' : `0x${tag.toString(16)}`;
  const block = (await evm('eth_getBlockByNumber', [blockTag, false])) as EvmBlock | null;
  if (block === null) return undefined;
  const number = BigInt(block.number);
  const witness = visible ? evmToTronBase58(block.miner) : evmToTronHex(block.miner);
  return {
    blockID: tronBlockId(number, block.hash),
    block_header: {
      raw_data: {
        number,
        txTrieRoot: block.transactionsRoot.slice(2),
        witness_address: witness,
        parentHash: tronBlockId(number === 0n ? 0n : number - 1n, block.parentHash),
        version: TRON_BLOCK_VERSION,
        timestamp: BigInt(block.timestamp) * 1000n,
      },
    },
  };
}
