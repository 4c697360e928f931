/** What an Electrum method implementation gets to work with. */
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import type { RpcCall } from '../../infra/utxo/daemonRpc.ts';
import type { ChainIndex } from './chainIndex.ts';
import type { ChainView } from './scriptHashQueries.ts';

/** Per-connection protocol state. */
export interface SessionState {
  /** True once a server.version was accepted (only the first one is). */
  versionNegotiated: boolean;
  /** Subscribed to headers: the hash of the last tip sent; undefined when not subscribed. */
  headersTip: string | undefined;
  /** Subscribed script hashes → the last status sent. */
  scriptHashes: Map<string, string | null>;
}

export interface MethodContext {
  session: SessionState;
  /** litecoind RPC, amount fields as exact decimal strings. */
  rpc: RpcCall;
  /** litecoind RPC with plain JSON numbers, for answers the protocol passes through (verbose transactions, fee rates). */
  plainRpc: RpcCall;
  /** The chain index, synced to the node's tip. */
  chain(): Promise<ChainIndex>;
  /** The synced chain plus a mempool snapshot taken at the same tip. */
  view(): Promise<ChainView>;
  /** The EVM behind `blockchain.contract.*` (the Qtum extension), when configured. */
  evm?: { request: EvmRequest };
  /** The `server.features` answer. */
  features(): Record<string, unknown>;
}

/** One Electrum method: positional params in, JSON result out; throw an ElectrumError to answer with an error. */
export type ElectrumMethod = (params: readonly unknown[], context: MethodContext) => Promise<unknown>;

export function newSessionState(): SessionState {
  return { versionNegotiated: false, headersTip: undefined, scriptHashes: new Map() };
}
