/**
 * The Multicall3 functions the service uses, by their published ABI: `aggregate3` (each call may
 * fail on its own) and `getEthBalance`. Every Multicall3 deployment has both.
 */
import { Interface } from 'ethers';

/** Where Multicall3 lives on most EVM chains (the same address on each). */
export const CANONICAL_MULTICALL_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

/**
 * Most calls in one `aggregate3`. A balance read costs the node ~5–30k gas (cold account and
 * storage access; proxy tokens such as USDC at the top), so 100 calls stay under ~3M gas, far below
 * the `eth_call` gas caps nodes set (geth's default is 50M), and the calldata (~224 bytes per call,
 * ~22 KB) far below request size limits. ETH + 50 tokens is one chunk; an HD window of 20 addresses
 * with 10 tokens (220 calls) is three. A node that still refuses a chunk is treated as lacking the
 * contract: the reads fall back to plain calls, with the same results.
 */
export const MULTICALL_CHUNK_SIZE = 100;

const multicall3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
]);

/** One call inside `aggregate3`; every call is sent with `allowFailure: true`. */
export interface MulticallItem {
  readonly target: string;
  readonly callData: string;
}

/** One call's outcome: `returnData` is the raw `0x…` bytes the target returned (or reverted with). */
export interface MulticallOutcome {
  readonly success: boolean;
  readonly returnData: string;
}

/** `getEthBalance(address)` call data. */
export function getEthBalanceCall(address: string): string {
  return multicall3.encodeFunctionData('getEthBalance', [address]);
}

/** `aggregate3` call data for `items`, each allowed to fail. */
export function aggregate3Call(items: readonly MulticallItem[]): string {
  return multicall3.encodeFunctionData('aggregate3', [items.map((item) => ({ target: item.target, allowFailure: true, callData: item.callData }))]);
}

/** Decodes an `aggregate3` answer of `expected` outcomes; `undefined` when it is not one (no contract, another contract). */
export function decodeAggregate3(raw: unknown, expected: number): MulticallOutcome[] | undefined {
  if (typeof raw !== 'string' || raw === '0x') return undefined;
  try {
    const [results] = multicall3.decodeFunctionResult('aggregate3', raw) as unknown as [[boolean, string][]];
    if (results.length !== expected) return undefined;
    return results.map(([success, returnData]) => ({ success, returnData }));
  } catch {
    return undefined;
  }
}

/** Splits `items` into chunks of at most {@link MULTICALL_CHUNK_SIZE}. */
export function chunked<T>(items: readonly T[], size = MULTICALL_CHUNK_SIZE): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
