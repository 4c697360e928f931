/**
 * What the reference's client asks of the node itself at login (docs/compatibility.md §19): legacy
 * `version` (its readiness probe), `get_wallet_names`, and `stream::shutdown_signal::enable`.
 */
import { enableStreamingParams, noParams, type GetWalletNamesResult, type VersionResponse } from '../../spec/nodeMethods.ts';
import { defineMethod, RpcVersion, type MethodTable } from '../methods.ts';

/** What the node says about itself. */
export interface NodeInfo {
  /** The service's version (`result` of `version`). */
  readonly version: string;
  /** When this service started, ISO 8601 (`datetime` of `version`: there is no build time to report). */
  readonly startedAt: string;
  /** MM2.json `wallet_name`: the one wallet this node runs, if the config names it. */
  readonly walletName: string | undefined;
}

/** The shutdown-signal streamer (`rpc/stream/streamHub.ts`). */
export interface ShutdownSignalStreams {
  enableShutdownSignal(clientId: number): string;
}

export function nodeMethods(node: NodeInfo, streams: ShutdownSignalStreams): MethodTable {
  return {
    version: defineMethod({
      version: RpcVersion.Legacy,
      params: noParams,
      handle: (): VersionResponse => ({ result: node.version, datetime: node.startedAt }),
    }),
    get_wallet_names: defineMethod({
      version: RpcVersion.V2,
      params: noParams,
      // One wallet per node: the one MM2.json names, else none (the reference's no-login mode).
      handle: (): GetWalletNamesResult =>
        node.walletName === undefined ? { wallet_names: [], activated_wallet: null } : { wallet_names: [node.walletName], activated_wallet: node.walletName },
    }),
    'stream::shutdown_signal::enable': defineMethod({
      version: RpcVersion.V2,
      params: enableStreamingParams,
      handle: ({ client_id }) => ({ streamer_id: streams.enableShutdownSignal(client_id) }),
    }),
  };
}
