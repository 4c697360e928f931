/** The TRON side of the balance watchers (issue 24): one watched node per node list, polled like EVM. */
import type { ActivatedCoin } from '../../machines/activation.types.ts';
import { DEFAULT_BALANCE_POLL_MS, coinBalances, type CoinWatch, type WatchedBalance, type WatchRead } from '../../actors/ports/balanceWatch.ts';
import { watchKey } from '../../machines/balanceWatch.machine.ts';
import type { PlannedToken } from '../../actors/platformPlan.ts';
import type { PlatformRead } from '../../actors/platformRead.ts';
import type { NodeList } from '../failover/nodeList.ts';
import { tronToEvmAddress } from '../keys/tronAddress.ts';
import type { TronNode } from './tronPlan.ts';

/** Reads one account through a node list with the family's failover (`readTronAccount` behind it). */
export type ReadTronAccount = (
  nodes: NodeList<TronNode>,
  owner: string,
  tokens: readonly PlannedToken[],
  withBalances: boolean,
  signal: AbortSignal,
) => Promise<PlatformRead>;

/**
 * What to watch of an active TRX: its TRX and each TRC20 at its address, through a watched node of
 * its own node list. A new block is found by `getnowblock`; a read is the activation's account
 * read (`getnowblock`, `getaccount` and the token calls at once: one round trip of wall time) per
 * watched address.
 */
export function tronCoinWatch(coin: ActivatedCoin, nodes: readonly TronNode[], pollMs: number | undefined, readAccount: ReadTronAccount): CoinWatch {
  const list: NodeList<TronNode> = { nodes: [...nodes] };
  const balances = coinBalances(coin);
  return {
    node: {
      key: ['tron', ...nodes.map((n) => `${n.gatewayProxy ? 'proxy+' : ''}${n.url}`).sort()].join(' '),
      pollMs: pollMs ?? DEFAULT_BALANCE_POLL_MS,
      readBlock: async (signal) => (await readAccount(list, ownerOf(coin.address), [], false, signal)).currentBlock,
      read: (watched, signal) => readWatched(list, watched, readAccount, signal),
      close: () => undefined, // TRON nodes are plain HTTP: nothing is held open
    },
    balances,
    block: coin.currentBlock,
  };
}

function ownerOf(address: string): string {
  const owner = tronToEvmAddress(address);
  if (owner === undefined) throw new Error(`not a TRON address: ${address}`);
  return owner;
}

/** Every watched address read at once, each with its TRX and its watched tokens; the lowest block is the read's. */
async function readWatched(list: NodeList<TronNode>, watched: readonly WatchedBalance[], readAccount: ReadTronAccount, signal: AbortSignal): Promise<WatchRead> {
  const byAddress = new Map<string, WatchedBalance[]>();
  for (const b of watched) byAddress.set(b.address, [...(byAddress.get(b.address) ?? []), b]);
  const reads = await Promise.all(
    [...byAddress].map(async ([address, items]) => {
      const tokens: PlannedToken[] = items.flatMap((b) => (b.contract === undefined ? [] : [{ ticker: b.ticker, contractAddress: b.contract, decimals: b.decimals }]));
      return { items, read: await readAccount(list, ownerOf(address), tokens, true, signal) };
    }),
  );
  const balances = new Map<string, { spendable: bigint; unspendable: bigint }>();
  for (const { items, read } of reads) {
    for (const b of items) {
      const spendable = b.contract === undefined ? read.native : read.tokens.find((t) => t.ticker === b.ticker)?.balance;
      if (spendable !== undefined) balances.set(watchKey(b), { spendable, unspendable: 0n });
    }
  }
  return { block: Math.min(...reads.map((r) => r.read.currentBlock)), balances };
}
