/**
 * Everything an EVM withdrawal needs from a node, in as few round trips as the data allow (issue 25,
 * docs/benchmarks.md): one JSON-RPC batch of the sender's balance (and token balance), its pending
 * and mined transaction counts, the gas price and the latest base fee when the fee is estimated, and
 * the gas estimate when the amount is known. Only `max` with an estimated gas needs a second trip
 * (the estimate's value depends on the balance). The reference makes these calls one after another.
 */
import { getBigInt, type JsonRpcProvider } from 'ethers';
import { nodeCall, rpcMessage, isNodeFailure, tokenCall } from '../evmCalls.ts';

/** A call to estimate: `eth_estimateGas` takes no fee fields here, so it can share the first batch. */
export interface EstimateCall {
  readonly to: string;
  readonly value: bigint;
  /** Hex with `0x`. */
  readonly data: string;
}

/** The estimate, or the node's refusal (a revert, insufficient funds) as its message. */
export type Estimate = { readonly gas: bigint } | { readonly refused: string };

export interface WithdrawRead {
  readonly balance: bigint;
  readonly tokenBalance?: bigint;
  readonly pendingCount: bigint;
  readonly minedCount: bigint;
  /** `eth_gasPrice` and the base fee of the next block (`eth_feeHistory`), when the fee is estimated. */
  readonly gasPrice?: bigint;
  readonly baseFee?: bigint;
  readonly estimate?: Estimate;
}

export interface ReadRequest {
  readonly from: string;
  /** An ERC20: its balance of the sender is read too. */
  readonly token?: { readonly ticker: string; readonly contractAddress: string };
  /** Read the gas price and base fee (no fee given). */
  readonly fees: boolean;
  readonly estimate?: EstimateCall;
}

const quantity = (value: bigint) => `0x${value.toString(16)}`;
const big = async (pending: Promise<unknown>) => getBigInt((await pending) as string);

/** `eth_estimateGas` of `call` from `from`: the node's refusal is a value, its failure an error (failover). */
export async function estimateGas(provider: JsonRpcProvider, from: string, call: EstimateCall): Promise<Estimate> {
  try {
    const raw = await provider.send('eth_estimateGas', [{ from, to: call.to, value: quantity(call.value), data: call.data }]);
    return { gas: getBigInt(raw as string) };
  } catch (error) {
    if (isNodeFailure(error)) throw error;
    return { refused: rpcMessage(error) };
  }
}

/** The first (usually only) round trip: every call below goes out in one batch. */
export async function readForWithdrawal(provider: JsonRpcProvider, request: ReadRequest): Promise<WithdrawRead> {
  const { from, token } = request;
  const balance = big(nodeCall(provider.send('eth_getBalance', [from, 'latest']), 'eth_getBalance'));
  const tokenBalance =
    token === undefined ? undefined : tokenCall(provider, { ...token, decimals: 0 }, 'balanceOf', `0x70a08231${from.slice(2).toLowerCase().padStart(64, '0')}`);
  const pending = big(nodeCall(provider.send('eth_getTransactionCount', [from, 'pending']), 'eth_getTransactionCount'));
  const mined = big(nodeCall(provider.send('eth_getTransactionCount', [from, 'latest']), 'eth_getTransactionCount'));
  const gasPrice = request.fees ? big(nodeCall(provider.send('eth_gasPrice', []), 'eth_gasPrice')) : undefined;
  const history = request.fees ? provider.send('eth_feeHistory', ['0x1', 'latest', []]) : undefined;
  const estimate = request.estimate === undefined ? undefined : estimateGas(provider, from, request.estimate);
  const [b, t, p, m, g, h, e] = await Promise.all([balance, tokenBalance, pending, mined, gasPrice, history?.catch(() => undefined), estimate]);
  return {
    balance: b,
    ...(t === undefined ? {} : { tokenBalance: t }),
    pendingCount: p,
    minedCount: m,
    ...(g === undefined ? {} : { gasPrice: g }),
    ...(baseFeeOf(h) === undefined ? {} : { baseFee: baseFeeOf(h)! }),
    ...(e === undefined ? {} : { estimate: e }),
  };
}

/** The next block's base fee from an `eth_feeHistory` answer; a node without EIP-1559 gives none. */
function baseFeeOf(history: unknown): bigint | undefined {
  const fees = (history as { baseFeePerGas?: unknown } | undefined)?.baseFeePerGas;
  if (!Array.isArray(fees) || fees.length === 0 || typeof fees[fees.length - 1] !== 'string') return undefined;
  return getBigInt(fees[fees.length - 1] as string);
}
