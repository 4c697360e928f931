import { getBigInt, type JsonRpcProvider } from 'ethers';
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { AddressRead } from '../../actors/hdScan.ts';
import { nodeCall } from './evmCalls.ts';
import { readBalances } from './multicall/balanceReads.ts';

/** A token to read; when `decimals` is absent `decimals()` is read in the same batch. */
export type TokenToRead = PlannedToken;

const unknownDecimals = (tokens: readonly TokenToRead[]) => tokens.filter((token) => token.decimals === undefined);

/**
 * Reads block height, native balance and every token balance of `address` in one round trip: the
 * block number beside the balances (see `multicall/balanceReads.ts`). Without `withBalances` only
 * the block (and any unknown decimals) is read.
 */
export async function readAccount(
  provider: JsonRpcProvider,
  address: string,
  tokens: readonly TokenToRead[],
  withBalances: boolean,
): Promise<PlatformRead> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const decimalsOf = unknownDecimals(tokens);
  const values = await readBalances(provider, { decimalsOf, owners: withBalances ? [address] : [], tokens: withBalances ? tokens : [] }, [block]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    native: withBalances ? values.native[0] : undefined,
    tokens: tokens.map((token, index) => ({
      ticker: token.ticker,
      balance: withBalances ? values.balances[0]![index] : undefined,
      decimals: token.decimals ?? Number(values.decimals[decimalsOf.indexOf(token)]),
    })),
  };
}

/**
 * Reads the block height, unknown token decimals, and for every address its transaction count,
 * native balance and token balances, all in one round trip: the transaction counts as batched
 * `eth_getTransactionCount` beside the balances, read as in {@link readAccount}.
 */
export async function readAddresses(
  provider: JsonRpcProvider,
  addresses: readonly string[],
  tokens: readonly TokenToRead[],
): Promise<{ currentBlock: number; decimals: number[]; addresses: AddressRead[] }> {
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const txCounts = addresses.map((address) => nodeCall(provider.send('eth_getTransactionCount', [address, 'latest']), 'eth_getTransactionCount'));
  const decimalsOf = unknownDecimals(tokens);
  const values = await readBalances(provider, { decimalsOf, owners: addresses, tokens }, [block, ...txCounts]);
  return {
    currentBlock: Number(getBigInt((await block) as string)),
    decimals: tokens.map((token) => token.decimals ?? Number(values.decimals[decimalsOf.indexOf(token)])),
    addresses: await Promise.all(
      addresses.map(async (_, index) => ({
        txCount: getBigInt((await txCounts[index]!) as string),
        native: values.native[index]!,
        tokens: [...values.balances[index]!],
      })),
    ),
  };
}
