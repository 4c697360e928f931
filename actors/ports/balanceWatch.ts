import type { CoinEntry } from '../../spec/coins.ts';
import type { ActivatedCoin, Balance } from '../../machines/activation.types.ts';
import type { WatchedBalance, WatchRead } from '../../machines/balanceWatch.machine.ts';

export type { WatchedBalance, WatchRead };

/**
 * A node as the balance watchers read it (issue 24), implemented by the chain families: one per
 * node list, shared by every active coin that reads through the same nodes, so that each new
 * block costs one read however many coins the node serves. Reads go through the family's failover.
 */
export interface WatchedNode {
  /**
   * Coins whose nodes have the same key share one watcher. It is held in memory only, never logged
   * or recorded (node URLs often hold API keys).
   */
  readonly key: string;
  /** Time between two polls of the block number (the platform's coins-file `balance_poll_s`). */
  readonly pollMs: number;
  /** The node's block number; must stop when `signal` aborts. */
  readBlock(signal: AbortSignal): Promise<number>;
  /** Every balance of `balances` and the block, in one round trip; must stop when `signal` aborts. */
  read(balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead>;
  /**
   * Follows the node's new heads (`eth_subscribe("newHeads")` over its WebSocket; Electrum's
   * `blockchain.headers.subscribe` and `blockchain.scripthash.subscribe`): `live` once subscribed,
   * `head` per block, `changed` per script-hash status change, `lost` when the subscription fails
   * or its socket closes (polling takes over; EVM does not resubscribe, Electrum does on the next
   * connection). Returns how to stop. Absent: the node is polled only.
   */
  followHeads?(listener: HeadListener): () => void;
  /** Lets go of what the watcher holds, once it no longer reads through this coin's connection. */
  close(): void;
}

/** Who hears a node's pushed heads (see {@link WatchedNode.followHeads}). */
export interface HeadListener {
  live(): void;
  head(block: number): void;
  /** A watched balance changed without a new block (an Electrum script hash's new status): read again. */
  changed(): void;
  lost(): void;
}

/** What to watch of one active coin: its balances as its activation read them, and its node. */
export interface CoinWatch {
  readonly node: WatchedNode;
  readonly balances: readonly WatchedBalance[];
  /** The block the activation read at. */
  readonly block: number;
}

/** Time between two polls of a node's block number without a coins-file `balance_poll_s` (the reference polls EVM balances every 10 s). */
export const DEFAULT_BALANCE_POLL_MS = 10_000;

/** The coins-file `balance_poll_s` of a platform entry in ms, as its connection keeps it (absent: none, the default applies). */
export function balancePollOf(entry: CoinEntry): { balancePollMs?: number } {
  return entry.balance_poll_s === undefined ? {} : { balancePollMs: Math.round(entry.balance_poll_s * 1000) };
}

/**
 * The balances an active coin is watched for: the coin's own (an ERC20 enabled on its own names
 * its `contract`) and each of its tokens', at the coin's address, from what activation read; for
 * an HD coin at every address its account lists too, both chains (issue 26), from the listing.
 */
export function coinBalances(coin: ActivatedCoin, contract?: string): WatchedBalance[] {
  const at = (address: string, balanceOf: (ticker: string) => Balance | undefined): WatchedBalance[] => {
    const own = balanceOf(coin.ticker);
    return [
      { ticker: coin.ticker, platform: coin.ticker, address, decimals: coin.decimals, ...(contract === undefined ? {} : { contract }), ...(own === undefined ? {} : { balance: own }) },
      ...coin.tokens.map((t) => {
        const balance = balanceOf(t.ticker);
        return { ticker: t.ticker, platform: coin.ticker, address, contract: t.contractAddress, decimals: t.decimals, ...(balance === undefined ? {} : { balance }) };
      }),
    ];
  };
  const enabled = at(coin.address, (ticker) => (ticker === coin.ticker ? coin.balance : coin.tokens.find((t) => t.ticker === ticker)?.balance));
  const listed = (coin.hd?.addresses ?? []).filter((a) => a.address !== coin.address).flatMap((a) => at(a.address, (ticker) => a.balances[ticker]));
  return [...enabled, ...listed];
}
