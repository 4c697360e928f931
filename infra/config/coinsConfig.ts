/**
 * The loaded coins configuration (docs/compatibility.md §5): validated entries in file order, looked up
 * by ticker, the first entry with a given `coin` winning.
 */
import { coinEntryValidator, type CoinEntry } from '../../spec/coins.ts';
import { ConfigError } from './configError.ts';
import { deepFreeze } from './deepFreeze.ts';

/** A short, safe rendering of a ticker for messages (quoted, control characters escaped, capped). */
function showTicker(coin: unknown): string {
  return typeof coin === 'string' && coin !== '' ? JSON.stringify(coin.slice(0, 40)) : '(no "coin")';
}

/** Immutable set of coin entries. Build with {@link CoinsConfig.fromEntries}. */
export class CoinsConfig {
  /** Where the entries came from, as used in messages (`coins`, `MM2.json "coins"`). */
  readonly source: string;
  /** Tickers that occur more than once; only their first entry is used. */
  readonly duplicates: readonly string[];
  readonly #entries: readonly CoinEntry[];
  readonly #byTicker: ReadonlyMap<string, CoinEntry>;

  private constructor(source: string, entries: readonly CoinEntry[]) {
    const byTicker = new Map<string, CoinEntry>();
    const duplicates = new Set<string>();
    for (const entry of entries) {
      if (byTicker.has(entry.coin)) duplicates.add(entry.coin);
      else byTicker.set(entry.coin, entry);
    }
    this.source = source;
    this.duplicates = Object.freeze([...duplicates]);
    this.#entries = Object.freeze(entries);
    this.#byTicker = byTicker;
  }

  /**
   * Validates every entry against `CoinEntrySchema` and builds the set. Throws a {@link ConfigError}
   * naming the first bad entry by index and ticker, e.g.
   * `coins: entry [12] "ETH": decimals: Expected integer` (key `coins[12].decimals`).
   */
  static fromEntries(entries: readonly unknown[], source: string): CoinsConfig {
    const valid: CoinEntry[] = [];
    entries.forEach((raw, index) => {
      const where = `${source}: entry [${index}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw new ConfigError(`coins[${index}]`, `${where}: must be an object with at least "coin" and "protocol"`);
      }
      const decoded = coinEntryValidator.decode(raw);
      if (!decoded.ok) {
        const { field, message } = decoded.problem;
        const ticker = showTicker((raw as { coin?: unknown }).coin);
        throw new ConfigError(`coins[${index}].${field}`, `${where} ${ticker}: ${field}: ${message}`);
      }
      valid.push(deepFreeze(decoded.value));
    });
    return new CoinsConfig(source, valid);
  }

  /** The entry for `ticker` (exact, case-sensitive match; the first one in file order). */
  find(ticker: string): CoinEntry | undefined {
    return this.#byTicker.get(ticker);
  }

  /** True when some entry has `coin` equal to `ticker`. */
  has(ticker: string): boolean {
    return this.#byTicker.has(ticker);
  }

  /** Number of distinct tickers (entries shadowed by a duplicate ticker are not counted). */
  get size(): number {
    return this.#byTicker.size;
  }

  /** Number of entries as written, duplicates included. */
  get entryCount(): number {
    return this.#entries.length;
  }

  /** All entries in file order, duplicates included. */
  entries(): readonly CoinEntry[] {
    return this.#entries;
  }

  /** Distinct tickers in file order. */
  tickers(): IterableIterator<string> {
    return this.#byTicker.keys();
  }
}
