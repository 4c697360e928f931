import type { EnableEthWithTokensResult } from '../enableEthWithTokens.ts';
import type { HdActivationResult, StandaloneActivationResult } from '../activationResult.ts';
import type { ActivationSummary } from '../events.ts';
import { renderNftsInfos } from './nftsInfos.ts';

const ZERO = { spendable: '0', unspendable: '0' };

/** Iguana result of `enable_eth_with_tokens` (spec 4.5, docs/compatibility.md §7). */
export function renderIguanaResult(a: ActivationSummary, getBalances: boolean): EnableEthWithTokensResult {
  const base = { derivation_method: { type: a.derivationMethod as 'Iguana' | 'HDWallet' }, pubkey: a.pubkey };
  const platform = getBalances && a.balance ? { ...base, balances: a.balance } : base;
  const tokens = getBalances
    ? { ...base, balances: Object.fromEntries(a.tokens.map((t) => [t.ticker, t.balance ?? ZERO])) }
    : { ...base, tickers: a.tokens.map((t) => t.ticker) };
  return {
    current_block: a.currentBlock,
    eth_addresses_infos: { [a.address]: platform },
    erc20_addresses_infos: { [a.address]: tokens },
    nfts_infos: renderNftsInfos(a.nfts),
  };
}

/**
 * HD-shaped result (hardware and HD keys, docs/compatibility.md §8): one account holding the enabled address, its
 * balances keyed by ticker (platform and tokens). Without balances the addresses come alone.
 */
export function renderHdResult(a: ActivationSummary, getBalances: boolean): HdActivationResult {
  if (a.hd !== undefined) return renderHdListing(a, a.hd, getBalances);
  const path = a.derivationPath ?? '';
  const parts = path.split('/');
  const accountPath = parts.slice(0, 4).join('/');
  const accountIndex = Number.parseInt(parts[3] ?? '0', 10);
  const chain = parts[4] === '1' ? ('Internal' as const) : ('External' as const);
  const balance = getBalances
    ? { [a.ticker]: a.balance ?? ZERO, ...Object.fromEntries(a.tokens.map((t) => [t.ticker, t.balance ?? ZERO])) }
    : undefined;
  const address = { address: a.address, derivation_path: path, chain, ...(balance ? { balance } : {}) };
  return {
    current_block: a.currentBlock,
    ticker: a.ticker,
    wallet_balance: {
      wallet_type: 'HD',
      accounts: [{ account_index: accountIndex, derivation_path: accountPath, ...(balance ? { total_balance: balance } : {}), addresses: [address] }],
    },
    nfts_infos: renderNftsInfos(a.nfts),
  };
}

/** The result shape for the key that activated: Iguana or HD. */
export function renderActivationResult(a: ActivationSummary, getBalances: boolean): EnableEthWithTokensResult | HdActivationResult {
  return a.derivationMethod === 'HDWallet' ? renderHdResult(a, getBalances) : renderIguanaResult(a, getBalances);
}

/** An HD wallet's scanned account (software HD keys): every listed address, in index order. */
function renderHdListing(a: ActivationSummary, hd: NonNullable<ActivationSummary['hd']>, getBalances: boolean): HdActivationResult {
  return {
    current_block: a.currentBlock,
    ticker: a.ticker,
    wallet_balance: {
      wallet_type: 'HD',
      accounts: [
        {
          account_index: hd.accountIndex,
          derivation_path: hd.accountPath,
          ...(getBalances ? { total_balance: hd.totalBalances } : {}),
          addresses: hd.addresses.map((x) => ({
            address: x.address,
            derivation_path: x.derivationPath,
            chain: x.chain,
            ...(getBalances ? { balance: x.balances } : {}),
          })),
        },
      ],
    },
    nfts_infos: renderNftsInfos(a.nfts),
  };
}

/**
 * A coin activated on its own by a task (`task::enable_utxo`, `task::enable_qtum`): the reference's
 * `UtxoStandardActivationResult`, keys in its order. An Iguana key shows its one address; HD and
 * hardware keys the account, as `task::enable_eth` shows it.
 */
export function renderStandaloneResult(a: ActivationSummary): StandaloneActivationResult {
  const walletBalance =
    a.derivationMethod === 'HDWallet'
      ? renderHdResult(a, true).wallet_balance
      : { wallet_type: 'Iguana' as const, address: a.address, balance: { [a.ticker]: a.balance ?? ZERO } };
  return { ticker: a.ticker, current_block: a.currentBlock, wallet_balance: walletBalance };
}
