import { Interface, getBigInt, type JsonRpcProvider } from 'ethers';
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { AddressRead } from '../../actors/hdScan.ts';
import { nodeCall } from './evmCalls.ts';
import { readBalances, type BalanceRead } from './multicall/balanceReads.ts';

const erc20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);
/** `decimals()` call data; constant, so encoded once. */
const DECIMALS_CALL = erc20.encodeFunctionData('decimals', []);

/** A token to read; when `decimals` is absent `decimals()` is read in the same batch. */
export type TokenToRead = PlannedToken;

/**
 * Reads block height, native balance and every token balance of `address` in one round trip: the
 * block number with one multicall per chunk of balances (see `multicall/balanceReads.ts`), or with
 * every balance as its own call, all in one JSON-RPC batch (or concurrent chunks above its batch
 * size). Without `withBalances` only the block (and any unknown decimals) is read.
 */
export async function readAccount(
  provider: JsonRpcProvider,
  address: string,
  tokens: readonly TokenToRead[],
  withBalances: boolean,
): Promise<PlatformRead> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  // The balanceOf call data is the same for every token: encode it once per read.
  const balanceOfCall = withBalances && tokens.length > 0 ? erc20.encodeFunctionData('balanceOf', [address]) : '';
  const reads: BalanceRead[] = withBalances ? [{ kind: 'native', address }] : [];
  const slots = tokens.map((token) => {
    const balance = withBalances ? reads.push({ kind: 'token', token, fn: 'balanceOf', data: balanceOfCall }) - 1 : undefined;
    const decimals = token.decimals === undefined ? reads.push({ kind: 'token', token, fn: 'decimals', data: DECIMALS_CALL }) - 1 : undefined;
    return { token, balance, decimals };
  });
  const values = await readBalances(provider, reads, [block]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    native: withBalances ? values[0] : undefined,
    tokens: slots.map(({ token, balance, decimals }) => ({
      ticker: token.ticker,
      balance: balance === undefined ? undefined : values[balance],
      decimals: decimals === undefined ? token.decimals! : Number(values[decimals]),
    })),
  };
}

/**
 * Reads the block height, unknown token decimals, and for every address its transaction count,
 * native balance and token balances, all in one round trip (one batch, or concurrent chunks): the
 * transaction counts as batched `eth_getTransactionCount`, the rest as in {@link readAccount}.
 */
export async function readAddresses(
  provider: JsonRpcProvider,
  addresses: readonly string[],
  tokens: readonly TokenToRead[],
): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const txCounts = addresses.map((address) => nodeCall(provider.send('eth_getTransactionCount', [address, 'latest']), 'eth_getTransactionCount'));
  const reads: BalanceRead[] = [];
  const decimalSlots = tokens.map((token) => (token.decimals === undefined ? reads.push({ kind: 'token', token, fn: 'decimals', data: DECIMALS_CALL }) - 1 : undefined));
  const addressSlots = addresses.map((address) => {
    const balanceOfCall = tokens.length > 0 ? erc20.encodeFunctionData('balanceOf', [address]) : '';
    const native = reads.push({ kind: 'native', address }) - 1;
    return { native, tokens: tokens.map((token) => reads.push({ kind: 'token', token, fn: 'balanceOf', data: balanceOfCall }) - 1) };
  });
  const values = await readBalances(provider, reads, [block, ...txCounts]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    decimals: decimalSlots.map((slot, index) => (slot === undefined ? tokens[index]!.decimals! : Number(values[slot]))),
    addresses: await Promise.all(
      addressSlots.map(async (slots, index) => ({
        txCount: getBigInt((await txCounts[index]!) as string),
        native: values[slots.native]!,
        tokens: slots.tokens.map((slot) => values[slot]!),
      })),
    ),
  };
}
