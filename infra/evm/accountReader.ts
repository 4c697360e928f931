import { Interface, getBigInt, type JsonRpcProvider } from 'ethers';
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { AddressRead } from '../../actors/hdScan.ts';
import { settleRoundTrip, TokenReadError } from '../failover/tokenReadError.ts';
import { EvmNodeError } from './evmNodeError.ts';

const erc20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);
/** `decimals()` call data; constant, so encoded once. */
const DECIMALS_CALL = erc20.encodeFunctionData('decimals', []);

/** A token to read; when `decimals` is absent `decimals()` is read in the same batch. */
export type TokenToRead = PlannedToken;

/**
 * Reads block height, native balance and every token balance of `address` in one round trip:
 * all calls are issued in the same tick, so the provider sends them as one JSON-RPC batch (or as
 * concurrent chunks above its batch size). Without `withBalances` only the block (and any unknown
 * decimals) is read.
 */
export async function readAccount(
  provider: JsonRpcProvider,
  address: string,
  tokens: readonly TokenToRead[],
  withBalances: boolean,
): Promise<PlatformRead> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const native = withBalances ? nodeCall(provider.send('eth_getBalance', [address, 'latest']), 'eth_getBalance') : undefined;
  // The balanceOf call data is the same for every token: encode it once per read.
  const balanceOfCall = withBalances && tokens.length > 0 ? erc20.encodeFunctionData('balanceOf', [address]) : '';
  const tokenReads = tokens.map((token) => ({
    token,
    balance: withBalances ? tokenCall(provider, token, 'balanceOf', balanceOfCall) : undefined,
    decimals: token.decimals === undefined ? tokenCall(provider, token, 'decimals', DECIMALS_CALL) : undefined,
  }));
  await settleRoundTrip([block, native, ...tokenReads.flatMap((r) => [r.balance, r.decimals])]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    native: native === undefined ? undefined : getBigInt((await native) as string),
    tokens: await Promise.all(
      tokenReads.map(async ({ token, balance, decimals }) => ({
        ticker: token.ticker,
        balance: balance === undefined ? undefined : await balance,
        decimals: decimals === undefined ? token.decimals! : Number(await decimals),
      })),
    ),
  };
}

/**
 * Reads the block height, unknown token decimals, and for every address its transaction count,
 * native balance and token balances, all in one round trip (one batch, or concurrent chunks).
 */
export async function readAddresses(
  provider: JsonRpcProvider,
  addresses: readonly string[],
  tokens: readonly TokenToRead[],
): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const decimals = tokens.map((t) => (t.decimals === undefined ? tokenCall(provider, t, 'decimals', DECIMALS_CALL) : Promise.resolve(BigInt(t.decimals))));
  const perAddress = addresses.map((address) => {
    const balanceOfCall = tokens.length > 0 ? erc20.encodeFunctionData('balanceOf', [address]) : '';
    return {
      txCount: nodeCall(provider.send('eth_getTransactionCount', [address, 'latest']), 'eth_getTransactionCount'),
      native: nodeCall(provider.send('eth_getBalance', [address, 'latest']), 'eth_getBalance'),
      tokens: tokens.map((t) => tokenCall(provider, t, 'balanceOf', balanceOfCall)),
    };
  });
  await settleRoundTrip([block, ...decimals, ...perAddress.flatMap((a) => [a.txCount, a.native, ...a.tokens])]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    decimals: (await Promise.all(decimals)).map(Number),
    addresses: await Promise.all(
      perAddress.map(async (a) => ({
        txCount: getBigInt((await a.txCount) as string),
        native: getBigInt((await a.native) as string),
        tokens: await Promise.all(a.tokens),
      })),
    ),
  };
}

/** A node-level call: any error means the node is unusable. */
async function nodeCall(pending: Promise<unknown>, method: string): Promise<unknown> {
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

async function tokenCall(
  provider: JsonRpcProvider,
  token: TokenToRead,
  fn: 'balanceOf' | 'decimals',
  data: string,
): Promise<bigint> {
  let raw: unknown;
  try {
    raw = await provider.send('eth_call', [{ to: token.contractAddress, data }, 'latest']);
  } catch (error) {
    if (error instanceof EvmNodeError || isThrottled(error)) throw asNodeError(error, 'eth_call');
    throw new TokenReadError(token.ticker, `${fn}() failed: ${rpcMessage(error)}`, { cause: error });
  }
  if (raw === '0x') throw new TokenReadError(token.ticker, `no contract answers ${fn}() at ${token.contractAddress}`);
  // Both functions return one static 32-byte word: read it directly rather than ABI-decode.
  if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{64}/.test(raw)) {
    throw new TokenReadError(token.ticker, `${fn}() returned malformed data`);
  }
  const value = BigInt(raw.slice(0, 66));
  if (fn === 'decimals' && value > 255n) throw new TokenReadError(token.ticker, `decimals() returned ${value}`);
  return value;
}

function asNodeError(error: unknown, method: string): EvmNodeError {
  if (error instanceof EvmNodeError) return error;
  return new EvmNodeError(`${method}: ${rpcMessage(error)}`, { cause: error });
}

/** The node's own JSON-RPC error message, not ethers' verbose wrapper (which echoes payloads). */
function rpcMessage(error: unknown): string {
  const info = (error as { info?: { error?: { message?: unknown; code?: unknown } } }).info?.error;
  if (info && typeof info.message === 'string') return `${info.message}${info.code === undefined ? '' : ` (code ${String(info.code)})`}`;
  const short = (error as { shortMessage?: unknown }).shortMessage;
  return typeof short === 'string' ? short : error instanceof Error ? error.message : String(error);
}

/** Rate limits and "busy" answers are about the node, not the token. */
function isThrottled(error: unknown): boolean {
  const info = (error as { info?: { error?: { code?: unknown; message?: unknown } } }).info?.error;
  return info?.code === -32005 || (typeof info?.message === 'string' && /rate|limit|busy|too many/i.test(info.message));
}
