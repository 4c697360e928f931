/** How every EVM read reaches the chain: the coin's node list, failover, one provider per attempt. */
import type { JsonRpcProvider } from 'ethers';
import type { Clock } from '../../kernel/clock.ts';
import { readFromNodes, type NodeList } from '../failover/nodeList.ts';
import type { TokenToRead } from './accountReader.ts';
import { createEvmProvider } from './evmProvider.ts';

/** Nodes of an active coin, best first (the one that last answered leads). */
export interface EvmConnection extends NodeList {
  readonly chainId: number;
  /** Set for an ERC20 activated on its own (legacy `enable`): its balance is this contract's. */
  readonly token?: TokenToRead;
  /** Legacy `enable` with a gas station: the station's price at activation, in wei. */
  readonly gasPriceWei?: bigint;
}

/** Runs `work` against a connection's nodes with the shared failover policy. */
export type WithEvmNodes = <T>(connection: EvmConnection, signal: AbortSignal, work: (provider: JsonRpcProvider) => Promise<T>) => Promise<T>;

/** The runner of a family's EVM reads: per-node budget `timeoutMs` on `clock`, `batchSize` calls per HTTP request. */
export function evmNodeRunner(options: { readonly clock: Clock; readonly timeoutMs: number; readonly batchSize: number }): WithEvmNodes {
  return (connection, signal, work) =>
    readFromNodes(connection, signal, { clock: options.clock, timeoutMs: options.timeoutMs }, async (url, nodeSignal) => {
      const provider = createEvmProvider({ url, chainId: connection.chainId, batchSize: options.batchSize, signal: nodeSignal });
      try {
        return await work(provider);
      } finally {
        provider.destroy();
      }
    });
}
