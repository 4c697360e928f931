/**
 * TRC20 reads through a Multicall3-compatible contract on TRON: many one-word calls (`balanceOf`,
 * `decimals`) in one `triggerconstantcontract` of `aggregate3`. Whether a node has the contract is
 * learned from its first answer and remembered for the session; where it has not (no contract, a
 * revert, an answer that is not `aggregate3`'s), the calls go out one by one as before.
 */
import { tronToEvmAddress } from '../keys/tronAddress.ts';
import { aggregate3Call, chunked, decodeAggregate3 } from '../multicall/aggregate3.ts';
import { MulticallSupport } from '../multicall/multicallSupport.ts';
import type { TronHttp, TronJson } from './tronHttp.ts';

/** The function `triggerconstantcontract` names (its selector is taken from this signature). */
const AGGREGATE3_SIGNATURE = 'aggregate3((address,bool,bytes)[])';

/**
 * Most calls in one `aggregate3`: a TRC20 read costs ~5–10k energy, so 100 stay far below the
 * energy a node allows a constant call, and the body (~230 bytes per call) far below request limits.
 */
export const TRON_MULTICALL_CHUNK_SIZE = 100;

/** The multicall contract (base58 `T…`) to try on the node at `url`. */
export interface TronMulticallRoute {
  readonly url: string;
  readonly contract: string;
  readonly support: MulticallSupport;
}

/** One call whose answer is one 32-byte word: `target` (base58) called with `callData` (`0x…`). */
export interface WordCall {
  readonly target: string;
  readonly callData: string;
}

/** How a caller checks a `triggerconstantcontract` answer: the word's hex, or why there is none. */
export type ConstantAnswer = (answer: TronJson) => { readonly hex: string } | { readonly why: string };

/**
 * Words of `calls` through `route`'s contract, one chunk per request, all at once. Each entry is
 * the word, or `undefined` where that call must be made on its own (it failed inside the multicall,
 * or the node has no working multicall): the caller then makes it as before, with today's errors.
 * A node failure (refused, busy, `{"Error"}`) rejects, so failover moves on.
 */
export async function multicallWords(
  http: TronHttp,
  calls: readonly WordCall[],
  owner: string,
  route: TronMulticallRoute,
  check: ConstantAnswer,
  signal: AbortSignal,
): Promise<(bigint | undefined)[]> {
  if (calls.length === 0 || route.support.known(route.url, route.contract) === false) return calls.map(() => undefined);
  const chunks = chunked(calls, TRON_MULTICALL_CHUNK_SIZE);
  const answers = await Promise.all(chunks.map((chunk) => aggregate(http, chunk, owner, route.contract, check, signal)));
  const present = answers.every((words) => words !== undefined);
  route.support.remember(route.url, route.contract, present);
  return present ? answers.flatMap((words) => words!) : calls.map(() => undefined);
}

/** One `aggregate3` request; `undefined` when the contract did not answer as Multicall3 does. */
async function aggregate(
  http: TronHttp,
  chunk: readonly WordCall[],
  owner: string,
  contract: string,
  check: ConstantAnswer,
  signal: AbortSignal,
): Promise<(bigint | undefined)[] | undefined> {
  const items = chunk.map((call) => ({ target: tronToEvmAddress(call.target)!, allowFailure: true, callData: call.callData }));
  // The node takes the arguments without the 4-byte selector, which it computes from the signature.
  const parameter = aggregate3Call(items).slice(10);
  const body = { owner_address: owner, contract_address: contract, function_selector: AGGREGATE3_SIGNATURE, parameter, visible: true };
  const result = check(await http.post('/wallet/triggerconstantcontract', body, signal));
  if (!('hex' in result)) return undefined;
  const outcomes = decodeAggregate3(`0x${result.hex}`, chunk.length);
  if (outcomes === undefined) return undefined;
  return outcomes.map(({ success, returnData }) => (success && /^0x[0-9a-fA-F]{64}/.test(returnData) ? BigInt(returnData.slice(0, 66)) : undefined));
}
