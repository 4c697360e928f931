import type { StoredEvent } from '../../spec/events.ts';

/** One enabled coin as `get_enabled_coins` lists it. */
export interface EnabledCoin {
  readonly ticker: string;
  readonly address: string;
  /** Set for tokens: the platform they were activated with. */
  readonly platform?: string;
  /** A disabled platform kept for its tokens (hidden from `my_balance`). */
  readonly passive: boolean;
}

interface PlatformRow {
  address: string;
  passive: boolean;
  tokens: Set<string>;
}

/**
 * Enabled coins of the current session, built only from events: a `SessionStarted` starts from
 * nothing (coins must be activated again after a restart), so replaying the whole log from the
 * start gives the same answer as following it live.
 */
export class EnabledCoinsProjection {
  readonly #platforms = new Map<string, PlatformRow>();
  #position = 0;

  /** Global sequence of the last event applied. */
  get position(): number {
    return this.#position;
  }

  apply(event: StoredEvent): void {
    if (event.metadata.seq <= this.#position) return; // idempotent on redelivery
    this.#position = event.metadata.seq;
    switch (event.type) {
      case 'SessionStarted':
        this.#platforms.clear();
        break;
      case 'CoinActivated': {
        const kept = this.#platforms.get(event.data.ticker)?.tokens ?? new Set<string>();
        for (const token of event.data.tokens) kept.add(token.ticker);
        this.#platforms.set(event.data.ticker, { address: event.data.address, passive: false, tokens: kept });
        break;
      }
      case 'CoinPassivated': {
        const row = this.#platforms.get(event.data.ticker);
        if (row) row.passive = true;
        break;
      }
      case 'CoinDisabled':
        this.#platforms.delete(event.data.ticker);
        break;
      case 'TokenDisabled':
        this.#platforms.get(event.data.platform)?.tokens.delete(event.data.ticker);
        break;
      case 'TokenActivated':
        this.#platforms.get(event.data.platform)?.tokens.add(event.data.ticker);
        break;
      default:
        break;
    }
  }

  /** Platforms and their tokens, platforms first in activation order. */
  list(): EnabledCoin[] {
    const out: EnabledCoin[] = [];
    for (const [ticker, row] of this.#platforms) {
      out.push({ ticker, address: row.address, passive: row.passive });
    }
    for (const [platform, row] of this.#platforms) {
      for (const token of row.tokens) out.push({ ticker: token, address: row.address, platform, passive: false });
    }
    return out;
  }

  /** The enabled coin for `ticker`, platform or token. */
  find(ticker: string): EnabledCoin | undefined {
    return this.list().find((c) => c.ticker === ticker);
  }
}
