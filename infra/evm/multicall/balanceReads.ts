/**
 * Native and token reads of one round trip, on the path the node takes (see {@link ReadPath}): one
 * deployless `eth_call` per chunk, one `aggregate3` per chunk where the node's chain has Multicall3,
 * or plain batched calls for a node that refuses calls without `to`. The same values and the same
 * errors on every path.
 */
import type { JsonRpcProvider } from 'ethers';
import { settleRoundTrip } from '../../failover/tokenReadError.ts';
import type { PlannedToken } from '../../../actors/platformPlan.ts';
import { nodeCall, tokenCall, tokenWord } from '../evmCalls.ts';
import type { MulticallOutcome } from '../../multicall/aggregate3.ts';
import { multicallRouteOf, ReadPath } from './multicallSupport.ts';
import { deploylessOutcomes, multicallOutcomes, type BalanceRead, type Outcomes } from './chunkedReads.ts';

/** What to read: `decimals()` of some tokens, and for every owner its native balance and `balanceOf` of every token. */
export interface BalanceQuery {
  readonly decimalsOf: readonly PlannedToken[];
  readonly owners: readonly string[];
  readonly tokens: readonly PlannedToken[];
}

/** The values of a {@link BalanceQuery}, in its order: `balances[owner][token]`. */
export interface BalanceValues {
  readonly decimals: readonly bigint[];
  readonly native: readonly bigint[];
  readonly balances: readonly (readonly bigint[])[];
}

const DECIMALS_CALL = '0x313ce567'; // decimals()
const BALANCE_OF = '0x70a08231'; // balanceOf(address)

/**
 * Reads every value of `query` in the round trip of the calls already issued in `sameTrip` (the
 * caller's own node calls, e.g. `eth_blockNumber`): every first call is issued in this tick so the
 * provider batches them. Failures are ranked as {@link settleRoundTrip} does: a node's first, else
 * the first token's, in the order of the query's owners and tokens.
 *
 * A read that failed inside a chunk is repeated on its own, so its error is the node's own words,
 * as with plain calls. What the first read of a node learns (a working Multicall3, or a refusal of
 * calls without `to`) is remembered for the node.
 */
export async function readBalances(provider: JsonRpcProvider, query: BalanceQuery, sameTrip: readonly Promise<unknown>[]): Promise<BalanceValues> {
  const reads = flatReads(query);
  const route = multicallRouteOf(provider);
  const path = route?.paths.known(route.url, route.address);
  let outcomes: Outcomes = [];
  if (reads.length > 0 && path !== ReadPath.Plain) {
    outcomes = path === ReadPath.Multicall ? await multicallOutcomes(provider, route!, reads, sameTrip) : await deploylessOutcomes(provider, route, reads, sameTrip);
  }
  const values = reads.map((read, index) => valueOf(provider, read, outcomes[index]));
  await settleRoundTrip([...sameTrip, ...rankOrder(query).map((index) => values[index])]);
  return shape(query, await Promise.all(values));
}

/** The reads of `query`, in order: decimals, then per owner its native balance and every token. */
function flatReads(query: BalanceQuery): BalanceRead[] {
  const reads: BalanceRead[] = query.decimalsOf.map((token) => ({ kind: 'token', token, fn: 'decimals', data: DECIMALS_CALL }));
  for (const address of query.owners) {
    reads.push({ kind: 'native', address });
    // The balanceOf call data is the same for every token: encode it once per owner.
    const data = `${BALANCE_OF}${address.slice(2).toLowerCase().padStart(64, '0')}`;
    for (const token of query.tokens) reads.push({ kind: 'token', token, fn: 'balanceOf', data, owner: address });
  }
  return reads;
}

/**
 * The order failures are ranked in: per owner its native balance, then per token its balance and,
 * the first time the token comes up, its decimals (as plain reads were issued before the multicall).
 */
function rankOrder(query: BalanceQuery): number[] {
  const decimalsAt = new Map(query.decimalsOf.map((token, index) => [token, index]));
  const order: number[] = [];
  query.owners.forEach((_, owner) => {
    const base = query.decimalsOf.length + owner * (query.tokens.length + 1);
    order.push(base);
    query.tokens.forEach((token, index) => {
      order.push(base + 1 + index);
      const decimals = decimalsAt.get(token);
      if (decimals !== undefined) order.push(decimals), decimalsAt.delete(token);
    });
  });
  return [...order, ...decimalsAt.values()];
}

function shape(query: BalanceQuery, values: readonly bigint[]): BalanceValues {
  const decimals = values.slice(0, query.decimalsOf.length);
  const perOwner = query.tokens.length + 1;
  const owners = query.owners.map((_, owner) => values.slice(decimals.length + owner * perOwner, decimals.length + (owner + 1) * perOwner));
  return { decimals, native: owners.map((row) => row[0]!), balances: owners.map((row) => row.slice(1)) };
}

/** A chunk's outcome for `read`; without one (a plain path, or a chunk no node could run) the read is its own call. */
function valueOf(provider: JsonRpcProvider, read: BalanceRead, outcome: MulticallOutcome | undefined): Promise<bigint> {
  if (outcome === undefined || !outcome.success) return readDirectly(provider, read);
  try {
    if (read.kind === 'token') return Promise.resolve(tokenWord(read.token, read.fn, outcome.returnData));
    if (/^0x[0-9a-fA-F]{64}$/.test(outcome.returnData)) return Promise.resolve(BigInt(outcome.returnData));
    return readDirectly(provider, read);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One read as its own call (`eth_getBalance`, `eth_call`). */
function readDirectly(provider: JsonRpcProvider, read: BalanceRead): Promise<bigint> {
  if (read.kind === 'token') return tokenCall(provider, read.token, read.fn, read.data);
  return nodeCall(provider.send('eth_getBalance', [read.address, 'latest']), 'eth_getBalance').then((hex) => BigInt(hex as string));
}
