/**
 * A QRC20 token balance: `balanceOf(address)` (and `decimals()` when the coins file has none) run
 * on the contract, with the wallet's hash160 as the Qtum account, in one round trip with the tip.
 * One rule, two transports: a Qtum Electrum server's `blockchain.contract.call`
 * ({@link electrumContractCalls}) and the daemon's `callcontract` ({@link daemonContractCalls}). Both answer
 * qtumd's `callcontract` result: `{ executionResult: { output, excepted, … } }`.
 */
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import type { ElectrumBatch } from './electrumAccountReader.ts';
import type { RpcCall } from './daemonRpc.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';

const BALANCE_OF = '70a08231';
const DECIMALS = '313ce567';

export interface Qrc20Read {
  readonly currentBlock: number;
  readonly balance: bigint;
  readonly decimals: number;
}

/**
 * Runs view calls (ABI-encoded `data`, hex) on `contract` (40 hex digits) and reads the tip, in
 * one round trip; `results` are the `callcontract` answers in the order of `data`. A transport
 * failure rejects; a malformed tip throws a plain `Error`.
 */
export type ContractCalls = (contract: string, data: readonly string[]) => Promise<{ currentBlock: number; results: readonly unknown[] }>;

/** The Qtum account of a key: hash160 of its compressed form, as hex. */
export function qtumAccount(compressedKey: Uint8Array): string {
  return Buffer.from(btcCrypto.hash160(Buffer.from(compressedKey))).toString('hex');
}

/** Reads `ticker`'s balance of `owner` (a {@link qtumAccount}) on `token.contract` (40 hex digits). */
export async function readQrc20Balance(
  calls: ContractCalls,
  token: { readonly ticker: string; readonly contract: string; readonly decimals: number | undefined },
  owner: string,
): Promise<Qrc20Read> {
  const data = [BALANCE_OF + owner.padStart(64, '0'), ...(token.decimals === undefined ? [DECIMALS] : [])];
  const { currentBlock, results } = await calls(token.contract, data);
  const [balance, decimals] = results;
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
  return { currentBlock, balance: value('balanceOf(address)', balance), decimals: places };
}

/** Contract calls over a Qtum Electrum server: `blockchain.contract.call` with `sender`, batched with `headers.subscribe`. */
export function electrumContractCalls(batch: ElectrumBatch, sender: string): ContractCalls {
  return async (contract, data) => {
    const [header, ...results] = await batch([
      { method: 'blockchain.headers.subscribe', params: [] },
      ...data.map((d) => ({ method: 'blockchain.contract.call', params: [contract, d, sender] })),
    ]);
    const height = (header as { height?: unknown } | null)?.height;
    if (typeof height !== 'number' || !Number.isSafeInteger(height)) throw new Error('headers.subscribe: no height');
    return { currentBlock: height, results };
  };
}

/**
 * Contract calls over the Qtum daemon's RPC: `callcontract "address" "data"` (no sender, as the
 * reference calls it) alongside `getblockcount`, sent together.
 */
export function daemonContractCalls(rpc: RpcCall, signal: AbortSignal): ContractCalls {
  return async (contract, data) => {
    const [height, ...results] = await Promise.all([rpc<unknown>('getblockcount', [], signal), ...data.map((d) => rpc<unknown>('callcontract', [contract, d], signal))]);
    if (typeof height !== 'number' || !Number.isSafeInteger(height)) throw new Error('getblockcount: not an integer');
    return { currentBlock: height, results };
  };
}
