/**
 * The two chunked read paths: the deployless call (every node) and `aggregate3` (a node whose chain
 * has Multicall3). Each fills one outcome per read; a read left without one is made as its own call.
 */
import type { JsonRpcProvider } from 'ethers';
import { settleRoundTrip } from '../../failover/tokenReadError.ts';
import { asNodeError, isNodeFailure } from '../evmCalls.ts';
import { aggregate3Call, chunked, decodeAggregate3, getEthBalanceCall, type MulticallOutcome } from '../../multicall/aggregate3.ts';
import { DEPLOYLESS_CHUNK_READS, deploylessCall, isMulticallAnswer, type DeploylessRead } from './deployless.ts';
import { ReadPath, type MulticallRoute } from './multicallSupport.ts';
import type { PlannedToken } from '../../../actors/platformPlan.ts';

/** One value to read: an address's native balance, or a token function (its call data encoded; `balanceOf` names its owner). */
export type BalanceRead =
  | { readonly kind: 'native'; readonly address: string }
  | { readonly kind: 'token'; readonly token: PlannedToken; readonly fn: 'decimals'; readonly data: string }
  | { readonly kind: 'token'; readonly token: PlannedToken; readonly fn: 'balanceOf'; readonly data: string; readonly owner: string };

/** One outcome per read, in the reads' order; `undefined` where the read is to be made on its own. */
export type Outcomes = (MulticallOutcome | undefined)[];

/** Reads `skip` to `skip + count` of a deployless call's results (the probe's first, when there is one). */
interface Piece {
  readonly skip: number;
  readonly count: number;
}

/** A deployless call's answer: its outcomes (maybe fewer than asked), too big for the node, or refused. */
type PieceAnswer = { readonly outcomes: MulticallOutcome[] } | 'too-big' | 'refused';

/**
 * The reads through deployless calls, in rounds: the first round is one call per chunk of
 * {@link DEPLOYLESS_CHUNK_READS} (or fewer, on a node whose gas cap cut a call short before), in
 * the round trip of `sameTrip`. Never is the same chunk asked twice: one the node's gas cap cut
 * short after k reads is continued from there, in concurrent chunks of k (and k is remembered for
 * the node); one the node found too big (gas or code size) is split in two; a read that is still
 * too big alone, or one the node's cap allows none of, is made on its own. With `route` and
 * nothing known of the node yet, the first read checks the route's Multicall3 and the node's path
 * is remembered: `multicall` if it answered, else `deployless`; a node that refuses the call is
 * remembered as `plain` and its reads are made on their own.
 */
export async function deploylessOutcomes(
  provider: JsonRpcProvider,
  route: MulticallRoute | undefined,
  balanceReads: readonly BalanceRead[],
  sameTrip: readonly Promise<unknown>[],
): Promise<Outcomes> {
  const probing = route !== undefined && route.paths.known(route.url, route.address) === undefined;
  const reads = balanceReads.map(toDeployless);
  const offset = probing ? 1 : 0; // the probe's result comes before the reads'
  const results: Outcomes = new Array(reads.length + offset);
  /** The call for results `skip` to `skip + count`: the probe's only in the piece that starts at 0. */
  const call = ({ skip, count }: Piece) => deploylessCall(reads.slice(Math.max(0, skip - offset), skip + count - offset), probing && skip === 0 ? route.address : undefined);
  // A node whose gas cap cut a call short before gets chunks it can answer whole, all at once.
  const chunkReads = Math.min(DEPLOYLESS_CHUNK_READS, route?.paths.chunkReads(route.url) ?? DEPLOYLESS_CHUNK_READS);
  let pieces = split({ skip: 0, count: reads.length + offset }, chunkReads);
  let trip = sameTrip;
  let refused = false;
  while (pieces.length > 0 && !refused) {
    const answers = pieces.map((piece) => deploylessPiece(provider, call(piece), piece.count));
    await settleRoundTrip([...trip, ...answers]);
    trip = [];
    const next: Piece[] = [];
    for (const [index, answer] of (await Promise.all(answers)).entries()) {
      const { skip, count } = pieces[index]!;
      if (answer === 'refused') refused = true;
      else if (answer === 'too-big') next.push(...(count > 1 ? split({ skip, count }, Math.ceil(count / 2)) : []));
      else {
        const made = answer.outcomes.length;
        answer.outcomes.forEach((outcome, at) => (results[skip + at] = outcome));
        // The probe is no measure of what the node's gas cap allows: only the reads made are.
        const readsMade = made - (probing && skip === 0 && made > 0 ? 1 : 0);
        if (readsMade > 0 && made < count) {
          route?.paths.rememberCut(route.url, readsMade);
          next.push(...split({ skip: skip + made, count: count - made }, readsMade));
        }
      }
    }
    pieces = next;
  }
  if (route !== undefined) {
    const probe = probing ? results[0] : undefined;
    if (refused) route.paths.remember(route.url, route.address, ReadPath.Plain);
    else if (probe !== undefined) route.paths.remember(route.url, route.address, isMulticallAnswer(probe) ? ReadPath.Multicall : ReadPath.Deployless);
  }
  return results.slice(offset);
}

/** `piece` as consecutive pieces of at most `size` reads. */
function split({ skip, count }: Piece, size: number): Piece[] {
  const pieces: Piece[] = [];
  for (let at = 0; at < count; at += size) pieces.push({ skip: skip + at, count: Math.min(size, count - at) });
  return pieces;
}

/** The contract's form of a read. */
function toDeployless(read: BalanceRead): DeploylessRead {
  if (read.kind === 'native') return read;
  return read.fn === 'decimals' ? { kind: 'decimals', token: read.token.contractAddress } : { kind: 'balanceOf', token: read.token.contractAddress, owner: read.owner };
}

/** One deployless call of `count` results. */
async function deploylessPiece(provider: JsonRpcProvider, data: string, count: number): Promise<PieceAnswer> {
  let raw: unknown;
  try {
    raw = await provider.send('eth_call', [{ data }, 'latest']);
  } catch (error) {
    if (isNodeFailure(error)) throw asNodeError(error, 'eth_call');
    return isTooBig(error) ? 'too-big' : 'refused';
  }
  const outcomes = decodeAggregate3(raw, count, true);
  return outcomes === undefined ? 'refused' : { outcomes };
}

/** The node's words for a call that needs more gas than it allows, or returns more code than it allows. */
function isTooBig(error: unknown): boolean {
  const info = (error as { info?: { error?: { message?: unknown } } }).info?.error?.message;
  const message = typeof info === 'string' ? info : error instanceof Error ? error.message : '';
  return /gas|code size|too large|exceed/i.test(message);
}

/**
 * The reads through `aggregate3` (one per chunk of 100, in the round trip of `sameTrip`). A node
 * whose contract refuses a chunk is remembered as lacking it, and the reads are made deployless.
 */
export async function multicallOutcomes(
  provider: JsonRpcProvider,
  route: MulticallRoute,
  reads: readonly BalanceRead[],
  sameTrip: readonly Promise<unknown>[],
): Promise<Outcomes> {
  const answers = chunked(reads).map((chunk) => aggregate(provider, route.address, chunk));
  await settleRoundTrip([...sameTrip, ...answers]);
  const outcomes = await Promise.all(answers);
  if (outcomes.every((chunk) => chunk !== undefined)) return outcomes.flat();
  route.paths.remember(route.url, route.address, ReadPath.Deployless);
  return deploylessOutcomes(provider, route, reads, []);
}

/** One `aggregate3` chunk; `undefined` when the contract refuses it (a revert, the node's gas cap) or answers something else. */
async function aggregate(provider: JsonRpcProvider, address: string, chunk: readonly BalanceRead[]): Promise<MulticallOutcome[] | undefined> {
  const items = chunk.map((read) => (read.kind === 'token' ? { target: read.token.contractAddress, callData: read.data } : { target: address, callData: getEthBalanceCall(read.address) }));
  let raw: unknown;
  try {
    raw = await provider.send('eth_call', [{ to: address, data: aggregate3Call(items) }, 'latest']);
  } catch (error) {
    if (isNodeFailure(error)) throw asNodeError(error, 'eth_call');
    return undefined;
  }
  return decodeAggregate3(raw, chunk.length);
}
