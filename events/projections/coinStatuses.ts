import type { StoredEvent } from '../../spec/events.ts';
import { coinStream } from '../log/eventLog.ts';
import { nextCoinStatus, type CoinStatus } from './coinStatus.ts';

const COIN_PREFIX = coinStream('');

/**
 * This node's coin statuses of the current session, in memory: the same values the KV bucket holds
 * (`<node_id>.coin.<TICKER>`), built by the same reducer ({@link nextCoinStatus}) from the same
 * events, so what `coin_status` answers is what the KV shows and what a replay rebuilds. A
 * `SessionStarted` starts from nothing (coins must be activated again after a restart).
 */
export class CoinStatusesProjection {
  readonly #statuses = new Map<string, CoinStatus>();
  readonly #nodeId: string;
  #position = 0;

  /** `nodeId`: the node the values name (`node_id`, when it has one). */
  constructor(nodeId = '') {
    this.#nodeId = nodeId;
  }

  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return; // idempotent on redelivery
    this.#position = event.metadata.seq;
    if (event.type === 'SessionStarted') {
      this.#statuses.clear();
      return;
    }
    const { stream } = event.metadata;
    if (!stream.startsWith(COIN_PREFIX)) return;
    const ticker = stream.slice(COIN_PREFIX.length);
    const next = nextCoinStatus(this.#statuses.get(ticker), event, { nodeId: this.#nodeId, ticker });
    if (next !== undefined) this.#statuses.set(ticker, next);
  }

  /** The status of coin `ticker` (a platform or a coin of its own; a token is in its platform's). */
  get(ticker: string): CoinStatus | undefined {
    return this.#statuses.get(ticker);
  }
}
