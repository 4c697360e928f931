/**
 * The deployless balance read: one `eth_call` without `to` whose data is the creation code of the
 * project's DeploylessBalances contract followed by its constructor arguments. The constructor
 * makes every read and returns the results in `aggregate3`'s answer shape; nothing is deployed,
 * so it works on every EVM node, whether or not its chain has a multicall contract.
 */
import { DEPLOYLESS_BALANCES_CODE } from './deploylessCode.ts';

/** What one deployless call reads, in this order: see {@link deploylessReadCount}. */
export interface DeploylessQuery {
  /** A Multicall3 address to check (`aggregate3([])` answered?) as the first read. */
  readonly probe?: string;
  /** Token contracts whose `decimals()` is read first. */
  readonly decimalsOf: readonly string[];
  /** Accounts whose native balance, then `balanceOf` of every token in `tokens`, is read. */
  readonly owners: readonly string[];
  readonly tokens: readonly string[];
}

/**
 * Most reads asked of one deployless call. What a constructor returns is the code of the contract
 * it creates, so nodes hold it to the 24,576-byte code size limit (EIP-170); a result takes at most
 * 160 bytes (the contract keeps 32 bytes of what a call returns), so 150 results (24,064 bytes with
 * the array's head) fit. Gas: a node charges 200 per returned byte (32,000 a result) on top of the
 * read (~5–30k), so a full chunk needs ~6–9M, below the `eth_call` gas caps nodes set (geth's and
 * erigon's default is 50M); with a lower cap the contract stops before its gas runs out and
 * returns what it read, and the rest is asked for in the next call. ETH + 50 tokens is one call;
 * an HD window of 20 addresses with 10 tokens (220 reads) two.
 */
export const DEPLOYLESS_CHUNK_READS = 150;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An address as one ABI word (hex, no `0x`). */
function addressWord(address: string): string {
  if (!ADDRESS.test(address)) throw new TypeError(`not an address: ${JSON.stringify(address).slice(0, 60)}`);
  return address.slice(2).toLowerCase().padStart(64, '0');
}

/** Reads the query makes: the probe, its decimals, then per owner its native balance and every token. */
export function deploylessReadCount(query: DeploylessQuery): number {
  return (query.probe === undefined ? 0 : 1) + query.decimalsOf.length + query.owners.length * (query.tokens.length + 1);
}

/** Whether the probe's result says a working Multicall3 answered: its answer starts with the array's offset, 0x20. */
export function isMulticallAnswer(outcome: { readonly success: boolean; readonly returnData: string }): boolean {
  return outcome.success && outcome.returnData === `0x${word(32)}`;
}

/** A non-negative integer as one 32-byte ABI word (hex, no `0x`). */
const word = (value: number) => value.toString(16).padStart(64, '0');

/**
 * The `data` of the call: creation code, then `abi.encode(probe, decimalsOf, owners, tokens, skip,
 * count)`, encoded by hand (an address, three dynamic `address[]` and two `uint256`; checked
 * against ethers' coder in the tests). Only reads `skip` to `skip + count` are made.
 */
export function deploylessCall(query: DeploylessQuery, skip: number, count: number): string {
  const arrays = [query.decimalsOf, query.owners, query.tokens].map((addresses) => `${word(addresses.length)}${addresses.map(addressWord).join('')}`);
  let offset = 32 * 6; // the head: the probe, three offsets, `skip` and `count`
  const heads: string[] = [];
  for (const array of arrays) {
    heads.push(word(offset));
    offset += array.length / 2;
  }
  const probe = query.probe === undefined ? word(0) : addressWord(query.probe);
  return `${DEPLOYLESS_BALANCES_CODE}${probe}${heads.join('')}${word(skip)}${word(count)}${arrays.join('')}`;
}
