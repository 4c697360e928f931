/**
 * A node in front of a devnet chain with the limits real nodes put on `eth_call`: a gas cap (as
 * geth's `--rpc.gascap`: a call asks for at most this much gas, whatever it asked for), and, as
 * some RPC gateways do, refusing every call without `to`. Everything else is the chain's answer.
 */
import { toQuantity } from 'ethers';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { startJsonRpcServer, type JsonRpcServer } from '../evm/jsonRpcServer.ts';

export interface NodeLimits {
  /** Refuse `eth_call` without `to`, with a JSON-RPC invalid-params error. */
  readonly refuseCallsWithoutTo?: boolean;
  /** Most gas an `eth_call` gets. */
  readonly callGasCap?: number;
}

const MISSING_TO = { code: -32602, message: 'invalid argument 0: missing required field "to"' };

export function startLimitedNode(request: EvmRequest, limits: NodeLimits): Promise<JsonRpcServer> {
  return startJsonRpcServer({
    handle: async (method, params) => {
      if (method !== 'eth_call' || !Array.isArray(params)) return request(method, params);
      const tx = (params[0] ?? {}) as { to?: unknown; gas?: unknown };
      if (limits.refuseCallsWithoutTo === true && (tx.to === undefined || tx.to === null)) throw MISSING_TO;
      if (limits.callGasCap === undefined) return request(method, params);
      const asked = typeof tx.gas === 'string' ? Number(BigInt(tx.gas)) : Infinity;
      return request(method, [{ ...tx, gas: toQuantity(Math.min(asked, limits.callGasCap)) }, ...params.slice(1)]);
    },
  });
}
