/**
 * `stream::balance::enable` and `stream::disable` (docs/compatibility.md §20): a client's
 * `/event-stream` hears the balance changes of a coin whose node is watched (issue 24).
 */
import type { ActivationService } from '../../actors/activationService.ts';
import { disableStreamingParams, enableBalanceStreamingParams, type DisableStreamingResult } from '../../spec/balanceStreaming.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { defineMethod, RpcVersion, type MethodTable } from '../methods.ts';

/** The balance streamers and `stream::disable` (`rpc/stream/streamHub.ts`). */
export interface BalanceStreams {
  enableBalance(clientId: number, coin: string): string;
  disableStreamer(clientId: number, streamerId: string): void;
}

export function balanceStreamingMethods(service: ActivationService, streams: BalanceStreams): MethodTable {
  return {
    'stream::balance::enable': defineMethod({
      version: RpcVersion.V2,
      params: enableBalanceStreamingParams,
      handle: ({ client_id, coin, config }) => {
        // The reference's order: the coin, then what its streamer supports, then its config.
        const watched = service.balanceWatched(coin);
        if (watched === undefined) throw new ActivationError(ErrorType.CoinNotFound, `${coin} is not enabled`);
        if (!watched) throw new ActivationError(ErrorType.CoinNotSupported, `the balance of ${coin} is not watched (only EVM and TRON coins are)`);
        if (config !== undefined) {
          throw new ActivationError(ErrorType.EnableError, `config is not supported: ${coin} is watched once per block, polled every balance_poll_s of its coins-file entry`, 'config');
        }
        return { streamer_id: streams.enableBalance(client_id, coin) };
      },
    }),
    'stream::disable': defineMethod({
      version: RpcVersion.V2,
      params: disableStreamingParams,
      handle: ({ client_id, streamer_id }): DisableStreamingResult => {
        streams.disableStreamer(client_id, streamer_id);
        return { result: 'Success' };
      },
    }),
  };
}
