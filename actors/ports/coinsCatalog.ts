import type { CoinEntry } from '../../spec/coins.ts';

/**
 * The coins file as activations read it: an entry by ticker (the first entry with that `coin` wins).
 * Implemented by the loaded config (`infra/config`).
 */
export interface CoinsCatalog {
  find(ticker: string): CoinEntry | undefined;
}
