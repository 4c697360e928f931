/** The EVM side of the balance watchers (issue 24): one watched node per node list, read in one round trip. */
import { getBigInt } from 'ethers';
import type { ActivatedCoin } from '../../machines/activation.types.ts';
import { DEFAULT_BALANCE_POLL_MS, coinBalances, type CoinWatch, type WatchedBalance, type WatchedNode, type WatchRead } from '../../actors/ports/balanceWatch.ts';
import { watchKey } from '../../machines/balanceWatch.machine.ts';
import type { PlannedToken } from '../../actors/platformPlan.ts';
import { nodeCall } from './evmCalls.ts';
import { readBalances } from './multicall/balanceReads.ts';
import { isWebSocketUrl, type EvmConnection, type EvmEndpoint, type WithEvmNodes } from './evmNodes.ts';
import type { HeadListener } from '../../actors/ports/balanceWatch.ts';

/**
 * The nodes a connection reads through, as one key: coins on the same chain with the same node
 * list share a watcher. In memory only (URLs may hold API keys).
 */
function nodeKey(connection: EvmConnection): string {
  return [connection.chainId, ...connection.nodes.map((n) => `${n.gatewayProxy ? 'proxy+' : ''}${n.url}`).sort()].join(' ');
}

/**
 * What to watch of an active EVM coin: the platform's own balance and each token's at the coin's
 * address (an ERC20 enabled on its own: its contract's), read through the coin's own nodes and sockets.
 */
export function evmCoinWatch(coin: ActivatedCoin, withNodes: WithEvmNodes): CoinWatch {
  const connection = coin.connection as EvmConnection;
  const own = connection.token;
  const balances = coinBalances(coin, own?.contractAddress);
  return { node: watchedEvmNode(connection, withNodes), balances, block: coin.currentBlock };
}

function watchedEvmNode(of: EvmConnection, withNodes: WithEvmNodes): WatchedNode {
  // The coin's own sockets (one per endpoint per coin, closed with the coin): the watcher, the
  // activation and `my_balance` share them; the watcher moves to another coin's when this one goes.
  const connection: EvmConnection = { chainId: of.chainId, nodes: [...of.nodes], sockets: of.sockets };
  // A node's WebSocket pushes its heads (`url` or `ws_url`); gateway proxies sign calls, not subscriptions: polled.
  const headsNode = of.nodes.find((n) => isWebSocketUrl(n.url) && !n.gatewayProxy);
  return {
    key: nodeKey(of),
    pollMs: of.balancePollMs ?? DEFAULT_BALANCE_POLL_MS,
    readBlock: (signal) => withNodes(connection, signal, async (provider) => Number(getBigInt((await nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber')) as string))),
    read: (balances, signal) => withNodes(connection, signal, (provider) => readWatched(provider, balances)),
    close: () => undefined, // the sockets are the coin's, closed when the coin is released
    ...(headsNode === undefined ? {} : { followHeads: (listener: HeadListener) => followHeads(connection, headsNode, listener) }),
  };
}

/**
 * `eth_subscribe("newHeads")` on the watcher's own socket to `node`: `live` once subscribed,
 * `head` per block, `lost` if it fails or the socket closes. Stopping unsubscribes.
 */
function followHeads(connection: EvmConnection, node: EvmEndpoint, listener: HeadListener): () => void {
  const controller = new AbortController();
  let unsubscribe: (() => void) | undefined;
  const lost = () => {
    if (!controller.signal.aborted) listener.lost();
  };
  void (async () => {
    const channel = await connection.sockets.channel(node.url, controller.signal);
    unsubscribe = await channel.subscribe('newHeads', controller.signal, (head) => {
      const number = (head as { number?: unknown } | null)?.number;
      if (typeof number === 'string' && /^0x[0-9a-fA-F]+$/.test(number)) listener.head(Number(BigInt(number)));
    });
    if (controller.signal.aborted) return unsubscribe();
    channel.onClosed(lost);
    listener.live();
  })().catch(lost);
  return () => {
    controller.abort();
    unsubscribe?.();
  };
}

/**
 * Every watched balance and the block number in one round trip: the owners' native balances and
 * every token of every owner, through `readBalances` (a few more values than asked when owners
 * hold different tokens; still one trip).
 */
async function readWatched(provider: Parameters<Parameters<WithEvmNodes>[2]>[0], balances: readonly WatchedBalance[]): Promise<WatchRead> {
  const owners = [...new Map(balances.map((b) => [b.address.toLowerCase(), b.address])).values()];
  const contracts = new Map<string, PlannedToken>();
  for (const b of balances) {
    if (b.contract !== undefined && !contracts.has(b.contract.toLowerCase())) {
      contracts.set(b.contract.toLowerCase(), { ticker: b.ticker, contractAddress: b.contract, decimals: b.decimals });
    }
  }
  const tokens = [...contracts.values()];
  const block = nodeCall(provider.send('eth_blockNumber', []), 'eth_blockNumber');
  const values = await readBalances(provider, { decimalsOf: [], owners, tokens }, [block]);
  const ownerAt = new Map(owners.map((o, i) => [o.toLowerCase(), i]));
  const tokenAt = new Map(tokens.map((t, i) => [t.contractAddress.toLowerCase(), i]));
  const read = new Map(
    balances.map((b) => {
      const owner = ownerAt.get(b.address.toLowerCase())!;
      const spendable = b.contract === undefined ? values.native[owner]! : values.balances[owner]![tokenAt.get(b.contract.toLowerCase())!]!;
      return [watchKey(b), { spendable, unspendable: 0n }] as const;
    }),
  );
  return { block: Number(getBigInt((await block) as string)), balances: read };
}
