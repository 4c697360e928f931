/**
 * Native and token reads of one round trip, through the node's multicall contract when it has one
 * (one `aggregate3` `eth_call` per chunk), else as plain batched calls, with the same results and
 * the same errors either way.
 */
import type { JsonRpcProvider } from 'ethers';
import { settleRoundTrip } from '../../failover/tokenReadError.ts';
import type { PlannedToken as TokenToRead } from '../../../actors/platformPlan.ts';
import { asNodeError, isNodeFailure, nodeCall, tokenCall, tokenWord, type TokenFunction } from '../evmCalls.ts';
import { EvmNodeError } from '../evmNodeError.ts';
import { aggregate3Call, chunked, decodeAggregate3, getEthBalanceCall, type MulticallOutcome } from '../../multicall/aggregate3.ts';
import { multicallRouteOf, type MulticallRoute } from './multicallSupport.ts';

/** One value to read: an address's native balance, or a token function (its call data encoded). */
export type BalanceRead =
  | { readonly kind: 'native'; readonly address: string }
  | { readonly kind: 'token'; readonly token: TokenToRead; readonly fn: TokenFunction; readonly data: string };

/**
 * Reads every value of `reads`, in the round trip of the calls already issued in `sameTrip` (the
 * caller's own node calls, e.g. `eth_blockNumber`), and resolves with the values in order. Every
 * call is issued in this tick so the provider batches them. Failures are ranked as
 * {@link settleRoundTrip} does: a node's first, else the first token's in `reads` order.
 *
 * Through a multicall route, a node read for the first time also gets `eth_getCode` of the contract;
 * a node without it (no code, or `aggregate3` refused) is remembered and read again with plain calls.
 * A call that failed inside the multicall is repeated on its own, so its error is the node's own
 * words, as without the multicall.
 */
export async function readBalances(provider: JsonRpcProvider, reads: readonly BalanceRead[], sameTrip: readonly Promise<unknown>[]): Promise<bigint[]> {
  const route = multicallRouteOf(provider);
  const known = route?.support.known(route.url, route.address);
  if (route === undefined || known === false || reads.length === 0) return readDirectly(provider, reads, sameTrip);

  const code = known === undefined ? contractCode(provider, route.address) : undefined;
  const chunks = chunked(reads);
  const answers = chunks.map((chunk) => aggregate(provider, route, chunk));
  await settleRoundTrip([...sameTrip, code, ...answers]);
  const outcomes = await Promise.all(answers);
  const present = (code === undefined || (await code) !== '0x') && outcomes.every((o) => o !== undefined);
  route.support.remember(route.url, route.address, present);
  if (!present) return readDirectly(provider, reads, []);

  const flat = (outcomes as MulticallOutcome[][]).flat();
  const values = reads.map((read, index) => fromOutcome(provider, read, flat[index]!));
  await settleRoundTrip(values);
  return Promise.all(values);
}

/** Every read as its own call (`eth_getBalance`, `eth_call`), as before the multicall. */
async function readDirectly(provider: JsonRpcProvider, reads: readonly BalanceRead[], sameTrip: readonly Promise<unknown>[]): Promise<bigint[]> {
  const values = reads.map((read) => readDirectly1(provider, read));
  await settleRoundTrip([...sameTrip, ...values]);
  return Promise.all(values);
}

function readDirectly1(provider: JsonRpcProvider, read: BalanceRead): Promise<bigint> {
  if (read.kind === 'token') return tokenCall(provider, read.token, read.fn, read.data);
  return nodeCall(provider.send('eth_getBalance', [read.address, 'latest']), 'eth_getBalance').then((hex) => BigInt(hex as string));
}

/** A successful call's bytes are what `eth_call` would have answered; a failed call is repeated on its own. */
function fromOutcome(provider: JsonRpcProvider, read: BalanceRead, outcome: MulticallOutcome): Promise<bigint> {
  if (!outcome.success) return readDirectly1(provider, read);
  try {
    if (read.kind === 'token') return Promise.resolve(tokenWord(read.token, read.fn, outcome.returnData));
    if (/^0x[0-9a-fA-F]{64}$/.test(outcome.returnData)) return Promise.resolve(BigInt(outcome.returnData));
    return readDirectly1(provider, read);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One `aggregate3` chunk; `undefined` when the contract refuses it (a revert, the node's gas cap) or answers something else. */
async function aggregate(provider: JsonRpcProvider, route: MulticallRoute, chunk: readonly BalanceRead[]): Promise<MulticallOutcome[] | undefined> {
  const items = chunk.map((read) =>
    read.kind === 'token' ? { target: read.token.contractAddress, callData: read.data } : { target: route.address, callData: getEthBalanceCall(read.address) },
  );
  let raw: unknown;
  try {
    raw = await provider.send('eth_call', [{ to: route.address, data: aggregate3Call(items) }, 'latest']);
  } catch (error) {
    if (isNodeFailure(error)) throw asNodeError(error, 'eth_call');
    return undefined;
  }
  return decodeAggregate3(raw, chunk.length);
}

/** The contract's code (`0x` when there is none). */
async function contractCode(provider: JsonRpcProvider, address: string): Promise<string> {
  let code: unknown;
  try {
    code = await provider.send('eth_getCode', [address, 'latest']);
  } catch (error) {
    throw asNodeError(error, 'eth_getCode');
  }
  if (typeof code !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(code)) throw new EvmNodeError(`eth_getCode returned ${JSON.stringify(code)?.slice(0, 80)}`);
  return code;
}
