/**
 * A node in front of a devnet chain that does not show transactions it has not mined: its
 * `eth_getTransactionCount(addr, "pending")` answers the mined count (as a load-balanced node
 * whose mempool lacks a fresh broadcast does). With the chain's automine off it shows how the
 * nonce book keeps a broadcast withdrawal's nonce until the node catches up.
 */
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { startJsonRpcServer, type JsonRpcServer } from '../evm/jsonRpcServer.ts';

export function startLaggingNode(request: EvmRequest): Promise<JsonRpcServer> {
  return startJsonRpcServer({
    handle: async (method, params) => {
      if (method === 'eth_getTransactionCount' && Array.isArray(params) && params[1] === 'pending') return request(method, [params[0], 'latest']);
      return request(method, params);
    },
  });
}
