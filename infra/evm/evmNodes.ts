/** How every EVM read reaches the chain: the coin's node list, failover, one provider per attempt. */
import type { JsonRpcProvider } from 'ethers';
import type { Clock } from '../../kernel/clock.ts';
import { readFromNodes, type NodeList } from '../failover/nodeList.ts';
import { TokenReadError } from '../failover/tokenReadError.ts';
import type { BusyNodes } from '../failover/busyNodes.ts';
import type { ProxySigner } from '../gatewayProxy/proxySign.ts';
import type { TokenToRead } from './accountReader.ts';
import { createEvmProvider, httpSend, wsSend } from './evmProvider.ts';
import type { WsPool } from './wsPool.ts';
import type { GasPriceAtActivation } from './gasStation.ts';
import { CANONICAL_MULTICALL_ADDRESS } from '../multicall/aggregate3.ts';
import { attachMulticall, type ReadPaths } from './multicall/multicallSupport.ts';

/**
 * One way to reach an EVM node: an `http(s)://` or `ws(s)://` URL (a node's `url`, or its
 * `ws_url`), and whether a gateway proxy in front of it wants signed requests.
 */
export interface EvmEndpoint {
  readonly url: string;
  readonly gatewayProxy: boolean;
  /**
   * The platform's Multicall3 contract: balances are read through it where the node has it (the
   * first deployless read checks), else with the deployless read.
   * @default CANONICAL_MULTICALL_ADDRESS
   */
  readonly multicall?: string;
}

/** Nodes of an active coin, best first (the one that last answered leads), and its sockets. */
export interface EvmConnection extends NodeList<EvmEndpoint> {
  readonly chainId: number;
  /** The coin's WebSockets (to its `ws(s)://` nodes), closed with the coin. */
  readonly sockets: WsPool;
  /** Set for an ERC20 activated on its own (legacy `enable`): its balance is this contract's. */
  readonly token?: TokenToRead;
  /** Activated with a gas station: the station, and its price at activation (later ones are events). */
  readonly gasPrice?: GasPriceAtActivation;
  /** Time between two polls of the block number while the coin's balances are watched (coins-file `balance_poll_s`). */
  readonly balancePollMs?: number;
}

/** Runs `work` against a connection's nodes with the shared failover policy. */
export type WithEvmNodes = <T>(connection: EvmConnection, signal: AbortSignal, work: (provider: JsonRpcProvider) => Promise<T>) => Promise<T>;

export interface EvmNodeRunnerOptions {
  readonly clock: Clock;
  /** Budget of one node (its socket's opening included) before the next is tried. */
  readonly timeoutMs: number;
  /** Most calls per request; a gateway-proxy node gets one call per request, as proxies read one. */
  readonly batchSize: number;
  /** The signer of gateway-proxy requests; planning refuses such nodes when there is none. */
  readonly proxySigner: () => ProxySigner | undefined;
  /** How each node reads balances, learned per node; without it every read is deployless and nothing is remembered. */
  readonly readPaths?: ReadPaths;
  /** The service's busy nodes, shared by every coin and family. */
  readonly busyNodes: BusyNodes;
}

/** Whether `url` is reached over a WebSocket. */
export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url);
}

/** The runner of a family's EVM reads: per-node budget `timeoutMs` on `clock`, HTTP or WebSocket alike. */
export function evmNodeRunner(options: EvmNodeRunnerOptions): WithEvmNodes {
  return (connection, signal, work) =>
    readFromNodes(connection, signal, { clock: options.clock, timeoutMs: options.timeoutMs, busyNodes: options.busyNodes }, async (node, nodeSignal) => {
      const signer = node.gatewayProxy ? options.proxySigner() : undefined;
      if (node.gatewayProxy && signer === undefined) throw new Error('a gateway-proxy node was planned without a signing identity');
      const webSocket = isWebSocketUrl(node.url);
      const send = webSocket ? wsSend(node.url, connection.sockets, nodeSignal, signer) : httpSend(node.url, nodeSignal, signer);
      const batchSize = node.gatewayProxy ? 1 : options.batchSize;
      const provider = createEvmProvider({ url: node.url, chainId: connection.chainId, batchSize, send });
      const paths = options.readPaths;
      if (paths !== undefined) attachMulticall(provider, { url: node.url, address: node.multicall ?? CANONICAL_MULTICALL_ADDRESS, paths });
      try {
        return await work(provider);
      } catch (error) {
        // A socket that failed or fell silent is closed; a contract's error says nothing about it.
        if (webSocket && !(error instanceof TokenReadError)) connection.sockets.drop(node.url);
        throw error;
      } finally {
        provider.destroy();
      }
    });
}
