/**
 * A QRC20 token balance over a Qtum Electrum server: `blockchain.contract.call` runs
 * `balanceOf(address)` (and `decimals()` when the coins file has none) on the contract, with the
 * wallet's hash160 as the Qtum account, in one batch with the tip.
 */
import type { ElectrumBatch } from './electrumAccountReader.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';

const BALANCE_OF = '70a08231';
const DECIMALS = '313ce567';

export interface Qrc20Read {
  readonly currentBlock: number;
  readonly balance: bigint;
  readonly decimals: number;
}

/** Reads `ticker`'s balance of `owner` (20-byte hash160, hex) on `contract` (40 hex digits). */
export async function readQrc20Balance(
  batch: ElectrumBatch,
  token: { readonly ticker: string; readonly contract: string; readonly decimals: number | undefined },
  owner: string,
): Promise<Qrc20Read> {
  const call = (data: string) => ({ method: 'blockchain.contract.call', params: [token.contract, data, owner] });
  const calls = [{ method: 'blockchain.headers.subscribe', params: [] }, call(BALANCE_OF + owner.padStart(64, '0'))];
  if (token.decimals === undefined) calls.push(call(DECIMALS));
  const [header, balance, decimals] = await batch(calls);
  const height = (header as { height?: unknown } | null)?.height;
  if (typeof height !== 'number' || !Number.isSafeInteger(height)) throw new Error('headers.subscribe: no height');
  const value = (fn: string, answer: unknown): bigint => {
    const result = (answer as { executionResult?: { output?: unknown; excepted?: unknown } } | null)?.executionResult;
    if (result === undefined) throw new Error(`contract.call ${fn}: no executionResult`);
    if (result.excepted !== 'None') throw new TokenReadError(token.ticker, `${fn} failed on ${token.contract}: ${String(result.excepted).slice(0, 100)}`);
    if (typeof result.output !== 'string' || !/^[0-9a-fA-F]{64}/.test(result.output)) {
      throw new TokenReadError(token.ticker, `${fn} returned no 32-byte value on ${token.contract}`);
    }
    return BigInt(`0x${result.output.slice(0, 64)}`);
  };
  const places = token.decimals ?? Number(value('decimals()', decimals));
  if (places > 255) throw new TokenReadError(token.ticker, `decimals() returned ${places}`);
  return { currentBlock: height, balance: value('balanceOf(address)', balance), decimals: places };
}
