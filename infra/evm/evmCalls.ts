/** The two kinds of EVM read and how their failures are classed: the node's, or a token contract's. */
import type { JsonRpcProvider } from 'ethers';
import { TokenReadError } from '../failover/tokenReadError.ts';
import { isRateLimitError } from '../failover/busyNodes.ts';
import type { PlannedToken as TokenToRead } from '../../actors/platformPlan.ts';
import { EvmNodeError } from './evmNodeError.ts';

/** The ERC20 functions read, each answering one static 32-byte word. */
export type TokenFunction = 'balanceOf' | 'decimals';

/** A node-level call: any error means the node is unusable. */
export async function nodeCall(pending: Promise<unknown>, method: string): Promise<unknown> {
  try {
    const value = await pending;
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) {
      throw new EvmNodeError(`${method} returned ${JSON.stringify(value)?.slice(0, 80)}`);
    }
    return value;
  } catch (error) {
    throw asNodeError(error, method);
  }
}

/** `eth_call` of a token function; a contract's failure is a {@link TokenReadError}, a node's an {@link EvmNodeError}. */
export async function tokenCall(provider: JsonRpcProvider, token: TokenToRead, fn: TokenFunction, data: string): Promise<bigint> {
  let raw: unknown;
  try {
    raw = await provider.send('eth_call', [{ to: token.contractAddress, data }, 'latest']);
  } catch (error) {
    if (isNodeFailure(error)) throw asNodeError(error, 'eth_call');
    throw new TokenReadError(token.ticker, `${fn}() failed: ${rpcMessage(error)}`, { cause: error });
  }
  return tokenWord(token, fn, raw);
}

/**
 * The value a token function returned (`raw`: the bytes of a successful call, from `eth_call` or
 * from inside a multicall alike). Both functions return one static 32-byte word: read it directly
 * rather than ABI-decode.
 */
export function tokenWord(token: TokenToRead, fn: TokenFunction, raw: unknown): bigint {
  if (raw === '0x') throw new TokenReadError(token.ticker, `no contract answers ${fn}() at ${token.contractAddress}`);
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(raw)) {
    throw new TokenReadError(token.ticker, `${fn}() returned malformed data`);
  }
  const value = BigInt(raw.slice(0, 66));
  if (fn === 'decimals' && value > 255n) throw new TokenReadError(token.ticker, `decimals() returned ${value}`);
  return value;
}

/** An error that is about the node (transport, HTTP status, rate limit), not about what was called. */
export function isNodeFailure(error: unknown): boolean {
  return error instanceof EvmNodeError || isThrottled(error);
}

export function asNodeError(error: unknown, method: string): EvmNodeError {
  if (error instanceof EvmNodeError) return error;
  return new EvmNodeError(`${method}: ${rpcMessage(error)}`, { cause: error });
}

/** The node's own JSON-RPC error message, not ethers' verbose wrapper (which echoes payloads). */
export function rpcMessage(error: unknown): string {
  // ethers keeps the node's error under `info.error`, or (an error it could not classify) under `error`.
  const info = (error as { info?: { error?: { message?: unknown; code?: unknown } } }).info?.error ?? (error as { error?: { message?: unknown; code?: unknown } }).error;
  if (info && typeof info.message === 'string') return `${info.message}${info.code === undefined ? '' : ` (code ${String(info.code)})`}`;
  const short = (error as { shortMessage?: unknown }).shortMessage;
  return typeof short === 'string' ? short : error instanceof Error ? error.message : String(error);
}

/** Rate limits are about the node, not the token (the one rule: {@link isRateLimitError}). */
function isThrottled(error: unknown): boolean {
  return isRateLimitError((error as { info?: { error?: unknown } }).info?.error);
}
