/**
 * `account_balance` (issue 24, docs/compatibility.md §21): one page of an HD account's listed
 * addresses with every balance of the coin and its tokens, read again — from the balance watchers
 * when they hold every value of the page confirmed within one poll interval (no node call), else
 * in one read through the coin's family.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import { Bip44Chain, type PagingOptions } from '../spec/accountBalance.ts';
import { ChainFamilyId, type ActivatedCoin, type Balance } from '../machines/activation.types.ts';
import { formatAmount } from '../spec/amount.ts';
import type { AccountBalanceRead } from '../spec/events.ts';
import type { WatchedBalance, WatchRead } from './ports/balanceWatch.ts';
import { watchKey } from '../machines/balanceWatch.machine.ts';
import type { WatchedValue } from './balanceWatchers.ts';

/**
 * Every chain the account lists (`task::account_balance`, the reference's `all_known_addresses_balances`):
 * both for a UTXO coin, External only for an account-model coin.
 */
export const ALL_CHAINS = 'all';

/** Which addresses of which account: `paging` absent is page 1. */
export interface AccountPageRequest {
  readonly accountIndex: number;
  /** One chain (`account_balance`), or {@link ALL_CHAINS}: External then Internal. */
  readonly chain: Bip44Chain | typeof ALL_CHAINS;
  readonly limit: number;
  readonly paging?: PagingOptions;
  /** A token of the coin: only its balances (absent: the coin's and every token's). */
  readonly only?: string;
}

/** One listed address of the page, balances keyed by ticker in each ticker's smallest unit. */
export interface AccountPageAddress {
  readonly address: string;
  readonly derivationPath: string;
  readonly chain: Bip44Chain;
  readonly balances: ReadonlyMap<string, Balance>;
}

/** A page of an HD account, as `account_balance` answers it. */
export interface AccountPage {
  readonly accountIndex: number;
  readonly accountPath: string;
  /** Decimals per ticker (the coin's and each token's). */
  readonly decimals: ReadonlyMap<string, number>;
  readonly addresses: readonly AccountPageAddress[];
  /** Addresses the account lists on the chain. */
  readonly total: number;
  /** Address ids before the page (at most `total`). */
  readonly skipped: number;
  /** Whether the page was answered from watched values only. */
  readonly fromWatchers: boolean;
}

export interface AccountPageDeps {
  /** The watched value of `ticker` at `address` on platform `platform`, if its node is watched. */
  watched(platform: string, ticker: string, address: string): WatchedValue | undefined;
  /** Every balance of `balances` in one read through the coin's family. */
  read(coin: ActivatedCoin, balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead>;
}

/** The reference's first address id of a page: after `FromId`, or `(page - 1) * limit`. */
export function firstAddressId(limit: number, paging: PagingOptions | undefined): number {
  if (paging === undefined) return 0;
  return 'FromId' in paging ? paging.FromId + 1 : (paging.PageNumber - 1) * limit;
}

/**
 * The page of `coin`'s HD account: `CoinIsActivatedNotWithHDWallet` for a coin without one (an
 * Iguana key), `UnknownAccount` for another account than the one activated (the reference's
 * `HDAccountBalanceRpcError` variants).
 */
export async function readAccountPage(coin: ActivatedCoin, request: AccountPageRequest, deps: AccountPageDeps, signal: AbortSignal): Promise<AccountPage> {
  const hd = coin.hd;
  if (hd === undefined) {
    throw new ActivationError(ErrorType.CoinIsActivatedNotWithHDWallet, 'Coin is expected to be activated with the HD wallet derivation method');
  }
  if (request.accountIndex !== hd.accountId) {
    throw new ActivationError(ErrorType.UnknownAccount, `HD account '${request.accountIndex}' is not activated`, { account_id: request.accountIndex });
  }
  // The listing holds each chain's addresses in address-id order from 0, External first.
  const chains = request.chain !== ALL_CHAINS ? [request.chain] : coin.family === ChainFamilyId.Utxo ? [Bip44Chain.External, Bip44Chain.Internal] : [Bip44Chain.External];
  const listed = hd.addresses.filter((a) => chains.includes(a.chain));
  const from = firstAddressId(request.limit, request.paging);
  const page = listed.slice(from, from + request.limit);
  const all = new Map<string, number>([[coin.ticker, coin.decimals], ...coin.tokens.map((t) => [t.ticker, t.decimals] as const)]);
  const decimals = request.only === undefined ? all : new Map([...all].filter(([ticker]) => ticker === request.only));
  const wanted: WatchedBalance[] = page.flatMap((a) =>
    [...decimals].map(([ticker, d]) => ({
      ticker,
      platform: coin.ticker,
      address: a.address,
      decimals: d,
      ...(ticker === coin.ticker ? {} : { contract: coin.tokens.find((t) => t.ticker === ticker)!.contractAddress }),
    })),
  );
  const watched = wanted.map((b) => deps.watched(coin.ticker, b.ticker, b.address));
  const fromWatchers = watched.every((w) => w?.fresh === true);
  const values = new Map<string, Balance>();
  if (fromWatchers) wanted.forEach((b, i) => values.set(watchKey(b), watched[i]!.balance));
  else if (wanted.length > 0) for (const [key, balance] of (await deps.read(coin, wanted, signal)).balances) values.set(key, balance);
  const valueOf = (ticker: string, address: string): Balance => {
    const value = values.get(watchKey({ ticker, address }));
    if (value === undefined) throw new ActivationError(ErrorType.InternalError, `the node's answer lacks the ${ticker} balance of an account address`);
    return value;
  };
  return {
    accountIndex: hd.accountId,
    accountPath: hd.accountPath,
    decimals,
    addresses: page.map((a) => ({
      address: a.address,
      derivationPath: a.derivationPath,
      chain: a.chain,
      balances: new Map([...decimals.keys()].map((ticker) => [ticker, valueOf(ticker, a.address)])),
    })),
    total: listed.length,
    skipped: Math.min(from, listed.length),
    fromWatchers,
  };
}

/** A page as a `task::account_balance` records it: decimal strings, the sum over its addresses. */
export function summarizeAccountPage(page: AccountPage): AccountBalanceRead {
  const info = (ticker: string, b: Balance) => {
    const d = page.decimals.get(ticker)!;
    return { spendable: formatAmount(b.spendable, d), unspendable: formatAmount(b.unspendable, d) };
  };
  const totals = new Map<string, Balance>([...page.decimals.keys()].map((t) => [t, { spendable: 0n, unspendable: 0n }]));
  for (const a of page.addresses) {
    for (const [ticker, b] of a.balances) {
      const sum = totals.get(ticker)!;
      totals.set(ticker, { spendable: sum.spendable + b.spendable, unspendable: sum.unspendable + b.unspendable });
    }
  }
  return {
    accountIndex: page.accountIndex,
    accountPath: page.accountPath,
    totalBalances: Object.fromEntries([...totals].map(([t, b]) => [t, info(t, b)])),
    addresses: page.addresses.map((a) => ({
      address: a.address,
      derivationPath: a.derivationPath,
      chain: a.chain,
      balances: Object.fromEntries([...a.balances].map(([t, b]) => [t, info(t, b)])),
    })),
  };
}
