import { ActivationError, ErrorType } from '../spec/errors.ts';
import { parseCoinProtocol, protocolTypeName } from '../spec/coins.ts';
import type { CoinsConfig } from '../infra/config/index.ts';
import type { EnabledCoin, EnabledCoinsProjection } from '../events/projections/enabledCoins.ts';
import { KeyPolicy, type ActivatedCoin, type ActivationPlan, type Balance } from '../machines/activation.types.ts';
import type { ChainFamily, PlatformActivationCommand } from './chainFamily.ts';
import type { CoinRegistry } from './coinRegistry.ts';

export interface DisableOutcome {
  readonly coin: string;
  readonly passivized: boolean;
}

/**
 * The application layer behind the RPC adapter: turns domain commands into actor commands and
 * answers queries from projections. Knows nothing of wire shapes.
 */
export class ActivationService {
  readonly #coins: CoinsConfig;
  readonly #families: readonly ChainFamily[];
  readonly #registry: CoinRegistry;
  readonly #enabledCoins: EnabledCoinsProjection;

  constructor(deps: {
    coins: CoinsConfig;
    families: readonly ChainFamily[];
    registry: CoinRegistry;
    enabledCoins: EnabledCoinsProjection;
  }) {
    this.#coins = deps.coins;
    this.#families = deps.families;
    this.#registry = deps.registry;
    this.#enabledCoins = deps.enabledCoins;
  }

  /**
   * Activates a platform with its tokens (`enable_eth_with_tokens`). Checks run in the reference's
   * order, synchronously up to the chain work, so a bad request registers nothing.
   */
  enablePlatformWithTokens(command: PlatformActivationCommand): Promise<ActivatedCoin> {
    this.#registry.assertCanActivate(command.ticker);
    return this.#registry.activate(this.planPlatform(command));
  }

  /**
   * BIP32 path a hardware key reads for `ticker`: the coin's `derivation_path` plus account 0,
   * External chain, address 0 (notes §6).
   */
  hardwarePath(ticker: string): string {
    const path = this.#coins.find(ticker)?.derivation_path;
    if (path === undefined) {
      const message = `coin ${ticker} has no derivation_path in the coins file: a hardware key cannot derive its address`;
      throw new ActivationError(ErrorType.InvalidRequest, message, message);
    }
    return `${path}/0'/0/0`;
  }

  /** Platform config → protocol parse → a family that serves the protocol → the family's checks. */
  planPlatform(command: PlatformActivationCommand): ActivationPlan {
    const { ticker } = command;
    if (command.keyPolicy === KeyPolicy.RemoteWallet) {
      const message = 'RemoteWallet policy needs a connected remote-wallet session; none is known';
      throw new ActivationError(ErrorType.PrivKeyNotAllowed, message, message);
    }
    const platform = this.#coins.find(ticker);
    if (platform === undefined) {
      throw new ActivationError(ErrorType.PlatformConfigIsNotFound, `Platform ${ticker} config is not found`, ticker);
    }
    const parsed = parseCoinProtocol(platform);
    if (!parsed.ok) {
      throw new ActivationError(ErrorType.CoinProtocolParseError, `Platform coin ${ticker} protocol parsing failed: ${parsed.error}`, {
        ticker,
        error: parsed.error,
      });
    }
    const family = this.#families.find((f) => f.platformProtocols.includes(protocolTypeName(parsed.protocol)));
    if (family === undefined) {
      throw new ActivationError(
        ErrorType.UnexpectedPlatformProtocol,
        `Unexpected platform protocol ${JSON.stringify(platform.protocol)} for ${ticker}`,
        { ticker, protocol: platform.protocol },
      );
    }
    return family.plan(command, { platform, platformProtocol: parsed.protocol, coins: this.#coins });
  }

  /** Enabled coins of this session (platforms, passive ones included, and tokens). */
  enabledCoins(): EnabledCoin[] {
    return this.#enabledCoins.list();
  }

  /** Disables a coin: a token alone, or a platform (passive while tokens remain, unless `force`). */
  async disableCoin(ticker: string, force: boolean): Promise<DisableOutcome> {
    const enabled = this.#enabledCoins.find(ticker);
    if (enabled?.platform !== undefined) {
      await this.#registry.disableToken(enabled.platform, ticker);
      return { coin: ticker, passivized: false };
    }
    const { passivized } = await this.#registry.disable(ticker, force);
    return { coin: ticker, passivized };
  }

  /**
   * Live balance of an enabled coin or token, with its address and decimals. A passive platform is
   * hidden, but its tokens still answer (behaviour notes §10), also while it is being re-activated.
   */
  async balance(ticker: string, signal: AbortSignal): Promise<{ address: string; decimals: number; balance: Balance }> {
    const enabled = this.#enabledCoins.find(ticker);
    const platform = this.#registry.view(enabled?.platform ?? ticker);
    const coin = platform.coin;
    const token = enabled?.platform === undefined ? undefined : coin?.tokens.find((t) => t.ticker === ticker);
    const answers = enabled?.platform === undefined ? platform.state === 'active' : token !== undefined;
    if (enabled === undefined || coin === null || !answers) {
      throw new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${ticker}`, ticker);
    }
    const family = this.#family(coin.family);
    const decimals = token === undefined ? coin.decimals : token.decimals;
    return { address: coin.address, decimals, balance: await family.balance(coin, ticker, signal) };
  }

  /** The chain work of a plan; the registry's actors invoke it. */
  activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
    return this.#family(plan.family).activate(plan, signal);
  }

  #family(id: string): ChainFamily {
    const family = this.#families.find((f) => f.id === id);
    if (!family) throw new ActivationError(ErrorType.InternalError, `no chain family ${id}`);
    return family;
  }
}
