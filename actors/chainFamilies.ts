import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { ActivatedCoin, ActivatedToken, ActivationPlan, Balance, TokenPlan } from '../machines/activation.types.ts';
import type { ChainFamily, CommandKind, GasPriceFeed, TokenSupport } from './ports/chainFamily.ts';
import type { CoinWatch, WatchedBalance, WatchRead } from './ports/balanceWatch.ts';
import type { WithdrawCapability } from './ports/withdraw.ts';

/**
 * The family router: picks a `ChainFamily` by what it serves (planning) or by id (chain work,
 * balances, release). The composition root builds it once and hands it to the registry, whose coin
 * actors run `activate` through it, and to the activation service.
 */
export class ChainFamilies {
  readonly #families: readonly ChainFamily[];

  constructor(families: readonly ChainFamily[]) {
    this.#families = families;
  }

  /** The family that serves coins-file protocol `type` for requests of `kind`, if any. */
  serving(kind: CommandKind, type: string): ChainFamily | undefined {
    return this.#families.find((f) => f.serves[kind]?.includes(type));
  }

  /** The protocol types served for requests of `kind`, in family order (for refusal messages). */
  servedTypes(kind: CommandKind): string[] {
    return this.#families.flatMap((f) => f.serves[kind] ?? []);
  }

  /** The family of a plan or an active coin; a missing one is a wiring bug (`InternalError`). */
  byId(id: string): ChainFamily {
    const family = this.#families.find((f) => f.id === id);
    if (!family) throw new ActivationError(ErrorType.InternalError, `no chain family ${id}`);
    return family;
  }

  /** The chain work of a plan; must stop when `signal` aborts. */
  activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
    return this.byId(plan.family).activate(plan, signal);
  }

  /** Live balance of an active coin or one of its tokens. */
  balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance> {
    return this.byId(coin.family).balance(coin, ticker, signal);
  }

  /** Lets the coin's family release what the coin holds open (connections). */
  release(coin: ActivatedCoin): void {
    this.byId(coin.family).release?.(coin);
  }

  /** How the family of an active platform adds tokens to it; `undefined` when it does not. */
  tokenSupport(platform: ActivatedCoin): TokenSupport | undefined {
    return this.byId(platform.family).tokens;
  }

  /** Reads a token for an active platform (`enable_erc20`) through its family. */
  readToken(platform: ActivatedCoin, token: TokenPlan, signal: AbortSignal): Promise<ActivatedToken> {
    const support = this.tokenSupport(platform);
    if (support === undefined) return Promise.reject(new ActivationError(ErrorType.InternalError, `family ${platform.family} adds no tokens`));
    return support.read(platform, token, signal);
  }

  /** The gas station of an active coin, if it was activated with one. */
  gasPriceFeed(coin: ActivatedCoin): GasPriceFeed | undefined {
    return this.byId(coin.family).gasPriceFeed?.(coin);
  }

  /**
   * `balances` (addresses of an active coin's HD account, its tokens') in one read through the
   * coin's family: its own account read, else its watched node's read (EVM, TRON).
   */
  readBalances(coin: ActivatedCoin, balances: readonly WatchedBalance[], signal: AbortSignal): Promise<WatchRead> {
    const family = this.byId(coin.family);
    if (family.readBalances !== undefined) return family.readBalances(coin, balances, signal);
    const node = family.balanceWatch?.(coin)?.node;
    if (node === undefined) return Promise.reject(new ActivationError(ErrorType.InternalError, `family ${coin.family} reads no account balances`));
    return node.read(balances, signal);
  }

  /** What to watch of an active coin (issue 24), if its family watches it. */
  balanceWatch(coin: ActivatedCoin): CoinWatch | undefined {
    return this.byId(coin.family).balanceWatch?.(coin);
  }

  /**
   * The withdraw capability of an active coin's family; `UnsupportedError` when the family has none
   * (the reference's answer for coins it cannot withdraw).
   */
  withdrawal(coin: ActivatedCoin, ticker: string): WithdrawCapability {
    const capability = this.byId(coin.family).withdraw;
    if (capability === undefined) throw new ActivationError(ErrorType.UnsupportedError, `${ticker}: withdrawing is not supported for this coin's family (${coin.family})`, `withdraw is not supported for ${ticker}`);
    return capability;
  }
}
