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

/** `aggregate3`'s selector, from its published signature. */
const AGGREGATE3_SELECTOR = multicall3.getFunction('aggregate3')!.selector;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const WORDS = /^0x(?:[0-9a-fA-F]{64})*$/;

/** A non-negative integer as one 32-byte ABI word (hex, no `0x`). */
const word = (value: number) => value.toString(16).padStart(64, '0');

/**
 * `aggregate3` call data for `items`, each allowed to fail. Encoded by hand (the ABI layout of one
 * dynamic array of `(address, bool, bytes)`): ethers' generic coder took ~8 ms for 51 calls and
 * ~20 ms for 101, more than the node needs to run them; this takes a fraction of a millisecond and
 * its output is checked against ethers' in the tests.
 */
export function aggregate3Call(items: readonly MulticallItem[]): string {
  const tuples = items.map(({ target, callData }) => {
    if (!ADDRESS.test(target)) throw new TypeError(`not an address: ${JSON.stringify(target).slice(0, 60)}`);
    if (!HEX_BYTES.test(callData)) throw new TypeError('call data is not hex bytes');
    const data = callData.slice(2).toLowerCase();
    const padded = data.padEnd(Math.ceil(data.length / 64) * 64, '0');
    // target, allowFailure = true, offset of the bytes (3 words in), their length, the padded bytes
    return `${target.slice(2).toLowerCase().padStart(64, '0')}${word(1)}${word(0x60)}${word(data.length / 2)}${padded}`;
  });
  const offsets: string[] = [];
  let offset = 32 * items.length;
  for (const tuple of tuples) {
    offsets.push(word(offset));
    offset += tuple.length / 2;
  }
  return `${AGGREGATE3_SELECTOR}${word(32)}${word(items.length)}${offsets.join('')}${tuples.join('')}`;
}

/**
 * Decodes an `aggregate3` answer of `expected` outcomes; `undefined` when it is not one (no
 * contract, another contract, any offset or length out of bounds, a `success` other than 0 or 1).
 * With `partial`, an answer of fewer outcomes is taken too (the deployless read's, cut short by
 * the node's gas cap). Decoded by hand for the same reason as {@link aggregate3Call}.
 */
export function decodeAggregate3(raw: unknown, expected: number, partial = false): MulticallOutcome[] | undefined {
  if (typeof raw !== 'string' || raw === '0x' || !WORDS.test(raw)) return undefined;
  const hex = raw.slice(2).toLowerCase();
  const size = hex.length / 2;
  /** The word at byte `at` as a number no larger than the answer (an offset or a length). */
  const bounded = (at: number): number | undefined => {
    if (at + 32 > size) return undefined;
    const text = hex.slice(at * 2, at * 2 + 64);
    if (!/^0{48}/.test(text)) return undefined;
    const value = Number.parseInt(text.slice(48), 16);
    return value <= size ? value : undefined;
  };
  const array = bounded(0);
  const length = array === undefined ? undefined : bounded(array);
  if (array === undefined || length === undefined || length > expected || (!partial && length !== expected)) return undefined;
  const base = array + 32;
  const outcomes: MulticallOutcome[] = [];
  for (let i = 0; i < length; i++) {
    const relative = bounded(base + 32 * i);
    if (relative === undefined) return undefined;
    const tuple = base + relative;
    const success = bounded(tuple);
    const bytesAt = bounded(tuple + 32);
    if ((success !== 0 && success !== 1) || bytesAt === undefined) return undefined;
    const bytes = tuple + bytesAt;
    const count = bounded(bytes);
    if (count === undefined || bytes + 32 + count > size) return undefined;
    outcomes.push({ success: success === 1, returnData: `0x${hex.slice((bytes + 32) * 2, (bytes + 32 + count) * 2)}` });
  }
  return outcomes;
}

/** Splits `items` into chunks of at most {@link MULTICALL_CHUNK_SIZE}. */
export function chunked<T>(items: readonly T[], size = MULTICALL_CHUNK_SIZE): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}
