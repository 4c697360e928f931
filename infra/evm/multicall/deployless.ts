/**
 * The deployless balance read: one `eth_call` without `to` whose data is the creation code of the
 * project's DeploylessBalances contract followed by its constructor arguments. The constructor
 * makes every read and returns the results in `aggregate3`'s answer shape; nothing is deployed,
 * so it works on every EVM node, whether or not its chain has a multicall contract.
 */
import { DEPLOYLESS_BALANCES_CODE } from './deploylessCode.ts';

/** What the contract reads: an address's native balance, a token's `decimals()`, or a token's `balanceOf(owner)`. */
export type DeploylessRead =
  | { readonly kind: 'native'; readonly address: string }
  | { readonly kind: 'decimals'; readonly token: string }
  | { readonly kind: 'balanceOf'; readonly token: string; readonly owner: string };

/** The kinds as the contract numbers them (the top byte of a read's word). */
const KIND = { native: 0, decimals: 1, balanceOf: 2 } as const;

/**
 * Most reads asked of one deployless call. What a constructor returns is the code of the contract
 * it creates, so nodes hold it to the 24,576-byte code size limit (EIP-170); a result takes at most
 * 160 bytes (the contract keeps 32 bytes of what a call returns), so 150 results (24,064 bytes with
 * the array's head) fit, the probe's included. Gas: a node charges 200 per returned byte (32,000 a
 * result) on top of the read (~5–30k), so a full chunk needs ~6–9M, below the `eth_call` gas caps
 * nodes set (geth's and erigon's default is 50M; a transaction's limit since Osaka, 2^24); with a
 * lower cap the contract stops before its gas runs out and returns what it read, and the rest is
 * asked for in the next call. ETH + 50 tokens is one call; an HD window of 20 addresses with 10
 * tokens (221 reads with the probe) two.
 */
export const DEPLOYLESS_CHUNK_READS = 150;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An address as 40 hex digits (no `0x`). */
function hex40(address: string): string {
  if (!ADDRESS.test(address)) throw new TypeError(`not an address: ${JSON.stringify(address).slice(0, 60)}`);
  return address.slice(2).toLowerCase();
}

/** A non-negative integer as one 32-byte ABI word (hex, no `0x`). */
const word = (value: number) => value.toString(16).padStart(64, '0');

/** Whether the probe's result says a working Multicall3 answered: its answer starts with the array's offset, 0x20. */
export function isMulticallAnswer(outcome: { readonly success: boolean; readonly returnData: string }): boolean {
  return outcome.success && outcome.returnData === `0x${word(32)}`;
}

/**
 * The `data` of the call: creation code, then `abi.encode(probe, owners, reads)` (an address, an
 * `address[]` of the owners `balanceOf` reads name, a `uint256[]` of reads), encoded by hand and
 * checked against ethers' coder in the tests. With `probe`, the first result is its check.
 */
export function deploylessCall(reads: readonly DeploylessRead[], probe?: string): string {
  const owners: string[] = [];
  const ownerAt = new Map<string, number>();
  const words = reads.map((read) => {
    if (read.kind === 'native') return `${KIND.native.toString(16).padStart(2, '0')}${'0'.repeat(22)}${hex40(read.address)}`;
    if (read.kind === 'decimals') return `${KIND.decimals.toString(16).padStart(2, '0')}${'0'.repeat(22)}${hex40(read.token)}`;
    const owner = hex40(read.owner);
    let index = ownerAt.get(owner);
    if (index === undefined) ownerAt.set(owner, (index = owners.push(owner) - 1));
    if (index > 0xffff) throw new RangeError('more than 65,536 owners in one call');
    return `${KIND.balanceOf.toString(16).padStart(2, '0')}${'0'.repeat(18)}${index.toString(16).padStart(4, '0')}${hex40(read.token)}`;
  });
  const ownersArray = `${word(owners.length)}${owners.map((o) => o.padStart(64, '0')).join('')}`;
  const readsArray = `${word(words.length)}${words.join('')}`;
  const head = `${probe === undefined ? word(0) : hex40(probe).padStart(64, '0')}${word(32 * 3)}${word(32 * 3 + ownersArray.length / 2)}`;
  return `${DEPLOYLESS_BALANCES_CODE}${head}${ownersArray}${readsArray}`;
}

/**
 * The calls that read `reads` in one round: chunks of {@link DEPLOYLESS_CHUNK_READS} results, the
 * probe's (when given) the first of the first chunk; each with the number of results it answers.
 */
export function deploylessChunks(reads: readonly DeploylessRead[], probe?: string): { readonly data: string; readonly count: number }[] {
  const chunks: { data: string; count: number }[] = [];
  const first = probe === undefined ? 0 : 1;
  for (let start = 0; start === 0 || start < reads.length; start += DEPLOYLESS_CHUNK_READS - (start === 0 ? first : 0)) {
    const size = DEPLOYLESS_CHUNK_READS - (start === 0 ? first : 0);
    const slice = reads.slice(start, start + size);
    chunks.push({ data: deploylessCall(slice, start === 0 ? probe : undefined), count: slice.length + (start === 0 ? first : 0) });
    if (start + size >= reads.length) break;
  }
  return chunks;
}

/** The reads of `owners`' native balances and `balanceOf` every token, per owner in order (as the service reads an account). */
export function accountReads(owners: readonly string[], tokens: readonly string[]): DeploylessRead[] {
  return owners.flatMap((owner): DeploylessRead[] => [{ kind: 'native', address: owner }, ...tokens.map((token): DeploylessRead => ({ kind: 'balanceOf', token, owner }))]);
}
