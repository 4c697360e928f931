import { formatAmount } from '../spec/amount.ts';
import type { ActivatedTokenInfo, BalanceInfo, EventOf } from '../spec/events.ts';
import type { DerivationMethod } from '../spec/derivationMethod.ts';

/** Chain families the service can activate; each is one adapter behind the `ChainFamily` port. */
export const ChainFamilyId = { Evm: 'evm', Tron: 'tron', Utxo: 'utxo' } as const;
export type ChainFamilyId = (typeof ChainFamilyId)[keyof typeof ChainFamilyId];

/** Which request started an activation (recorded in `ActivationRequested`). */
export const ActivationVia = {
  EnableEthWithTokens: 'enable_eth_with_tokens',
  EnableEthTask: 'task::enable_eth',
  Enable: 'enable',
  Electrum: 'electrum',
} as const;
export type ActivationVia = (typeof ActivationVia)[keyof typeof ActivationVia];

export { DerivationMethod } from '../spec/derivationMethod.ts';

/** Where the activation's key comes from (spec PrivKeyPolicy, less what this native build refuses). */
export const KeyPolicy = { ContextPrivKey: 'ContextPrivKey', Hardware: 'Hardware', RemoteWallet: 'RemoteWallet' } as const;
export type KeyPolicy = (typeof KeyPolicy)[keyof typeof KeyPolicy];

/** A key already obtained outside the key provider (a hardware device), at a BIP32 path. */
export interface ResolvedKey {
  /** Uncompressed public key, `04` + 128 hex. */
  readonly uncompressedHex: string;
  readonly address: string;
  readonly derivationPath: string;
}

/** A validated activation: everything checked that can be checked without the chain. */
export interface ActivationPlan {
  readonly ticker: string;
  readonly family: ChainFamilyId;
  readonly via: ActivationVia;
  readonly tokens: readonly string[];
  readonly getBalances: boolean;
  /** Family-specific validated parameters (nodes, contracts). Never logged, never in an event. */
  readonly params: unknown;
  /** Set for hardware keys: activate this key's address instead of asking the key provider. */
  readonly key?: ResolvedKey;
}

/** Integer balances in the coin's smallest unit. */
export interface Balance {
  readonly spendable: bigint;
  readonly unspendable: bigint;
}

export interface ActivatedToken {
  readonly ticker: string;
  readonly contractAddress: string;
  readonly decimals: number;
  readonly balance?: Balance;
}

/** What a successful activation knows about the coin. */
export interface ActivatedCoin {
  readonly ticker: string;
  readonly family: ChainFamilyId;
  readonly address: string;
  /** Uncompressed public key, `04` + 128 hex. */
  readonly pubkey: string;
  readonly derivationMethod: DerivationMethod;
  /** BIP32 path of the address (HD and hardware keys). */
  readonly derivationPath?: string;
  readonly currentBlock: number;
  readonly decimals: number;
  readonly balance?: Balance;
  readonly tokens: readonly ActivatedToken[];
  /** Legacy activations report these (spec 4.6); `mature` only for UTXO coins. */
  readonly confirmations?: { readonly required: number; readonly requiresNotarization: boolean; readonly mature?: number };
  /** EVM coins through legacy `enable`: the amount held by running swaps (none in this service). */
  readonly lockedBySwaps?: bigint;
  /** Opaque handle the family uses for later reads (e.g. `my_balance`). Not part of any event. */
  readonly connection: unknown;
}

function balanceInfo(balance: Balance, decimals: number): BalanceInfo {
  return { spendable: formatAmount(balance.spendable, decimals), unspendable: formatAmount(balance.unspendable, decimals) };
}

function tokenInfo(token: ActivatedToken): ActivatedTokenInfo {
  const { ticker, contractAddress, decimals, balance } = token;
  return balance === undefined
    ? { ticker, contractAddress, decimals }
    : { ticker, contractAddress, decimals, balance: balanceInfo(balance, decimals) };
}

/** The formatted, secret-free summary of an activation: the data of its `CoinActivated` event. */
export type ActivationSummary = EventOf<'CoinActivated'>['data'];

/** Summarizes a coin: decimal-string amounts, no connection details. */
export function summarizeActivation(coin: ActivatedCoin, attempt: number): ActivationSummary {
  const data: ActivationSummary = {
    ticker: coin.ticker,
    family: coin.family,
    address: coin.address,
    pubkey: coin.pubkey,
    derivationMethod: coin.derivationMethod,
    currentBlock: coin.currentBlock,
    tokens: coin.tokens.map(tokenInfo),
    attempt,
  };
  if (coin.balance !== undefined) data.balance = balanceInfo(coin.balance, coin.decimals);
  if (coin.derivationPath !== undefined) data.derivationPath = coin.derivationPath;
  return data;
}

/** The `CoinActivated` event of a coin. */
export function coinActivatedEvent(coin: ActivatedCoin, attempt: number): EventOf<'CoinActivated'> {
  return { type: 'CoinActivated', data: summarizeActivation(coin, attempt) };
}
