/**
 * The shape every account-model family (EVM, TRON) reads from its chain, and how a plan plus that
 * read become an `ActivatedCoin`: one place, so families only do chain work.
 */
import type { PlannedToken } from './platformPlan.ts';
import type { ActivatedCoin, ActivatedToken, ActivationPlan, Balance, ChainFamilyId, DerivationMethod, TokenPlan } from '../machines/activation.types.ts';
import { currentActivationProgress } from './ports/activationProgress.ts';

/** Block height and integer balances (smallest units); balances absent when not asked for. */
export interface PlatformRead {
  readonly currentBlock: number;
  readonly native: bigint | undefined;
  readonly tokens: readonly { readonly ticker: string; readonly decimals: number; readonly balance: bigint | undefined }[];
}

/** What an activation knows besides the chain read. */
export interface ActivatedPlatformBase {
  readonly plan: ActivationPlan;
  readonly family: ChainFamilyId;
  readonly address: string;
  readonly pubkey: string;
  readonly derivationMethod: DerivationMethod;
  readonly derivationPath?: string | undefined;
  readonly decimals: number;
  /** The planned tokens, in the order of `read.tokens`. */
  readonly tokens: readonly PlannedToken[];
  readonly connection: unknown;
}

const spendable = (raw: bigint): Balance => ({ spendable: raw, unspendable: 0n });

/**
 * The activated coin: account-model balances are all spendable. The read's tokens are reported to
 * the activation's progress (`TokensRead`): they come in one round trip, so once.
 */
export function activatedPlatform(base: ActivatedPlatformBase, read: PlatformRead): ActivatedCoin {
  if (base.tokens.length > 0) currentActivationProgress()?.tokensRead(read.tokens.length, base.tokens.length);
  return {
    ticker: base.plan.ticker,
    family: base.family,
    address: base.address,
    pubkey: base.pubkey,
    derivationMethod: base.derivationMethod,
    ...(base.derivationPath === undefined ? {} : { derivationPath: base.derivationPath }),
    currentBlock: read.currentBlock,
    decimals: base.decimals,
    ...(read.native === undefined ? {} : { balance: spendable(read.native) }),
    tokens: read.tokens.map((t, i) => ({
      ticker: t.ticker,
      contractAddress: base.tokens[i]!.contractAddress,
      decimals: t.decimals,
      ...(t.balance === undefined ? {} : { balance: spendable(t.balance) }),
    })),
    connection: base.connection,
  };
}

/** A token added to an active platform (`enable_erc20`), from a read of just that token. */
export function tokenFromRead(token: TokenPlan, read: PlatformRead): ActivatedToken {
  const [only] = read.tokens;
  if (only === undefined) throw new Error(`the read of ${token.ticker} returned no token`); // a family bug
  return {
    ticker: token.ticker,
    contractAddress: token.contractAddress,
    decimals: only.decimals,
    ...(only.balance === undefined ? {} : { balance: spendable(only.balance) }),
  };
}

/** What to read of a token plan (its decimals when the plan has them). */
export function tokenToRead(token: TokenPlan): PlannedToken {
  return { ticker: token.ticker, contractAddress: token.contractAddress, decimals: token.decimals };
}

/** Live balance of `ticker` (the platform or one of its tokens) from a read of just that. */
export function balanceFromRead(coin: ActivatedCoin, ticker: string, read: PlatformRead): Balance {
  return spendable(ticker === coin.ticker ? read.native! : read.tokens[0]!.balance!);
}

/** The one token of `coin` a balance read of `ticker` needs (none for the platform itself). */
export function tokensForBalance(coin: ActivatedCoin, ticker: string): PlannedToken[] {
  return coin.tokens
    .filter((t) => t.ticker === ticker && ticker !== coin.ticker)
    .map((t) => ({ ticker: t.ticker, contractAddress: t.contractAddress, decimals: t.decimals }));
}
