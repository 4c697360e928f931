import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../spec/errors.ts';
import { parseCoinProtocol, protocolTypeName } from '../spec/coins.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { EnabledCoin, EnabledCoinsProjection } from '../events/projections/enabledCoins.ts';
import type { HdAddressesProjection } from '../events/projections/hdAddresses.ts';
import { requireSingleAddressPath, requireSingleAddressScan, resolveHdScan, SingleAddressKey } from './hdPlan.ts';
import { KeyPolicy, type ActivationPlan, type Balance } from '../machines/activation.types.ts';
import {
  CommandKind,
  type ActivationCommand,
  type ElectrumActivationCommand,
  type EnableActivationCommand,
  type PlatformActivationCommand,
} from './ports/chainFamily.ts';
import type { CoinRegistry } from './coinRegistry.ts';
import type { Activation } from './activationOutcome.ts';
import type { ChainFamilies } from './chainFamilies.ts';

type LegacyCommand = ElectrumActivationCommand | EnableActivationCommand;

/** The HD wallet of the session (HD mode only). */
export interface HdWallet {
  readonly walletId: string;
  readonly known: Pick<HdAddressesProjection, 'known'>;
}

export interface DisableOutcome {
  readonly coin: string;
  readonly passivized: boolean;
}

/**
 * The application layer behind the RPC adapter: turns domain commands into actor commands and
 * answers queries from projections. Knows nothing of wire shapes.
 *
 * The path of one activation request (`enable_eth_with_tokens` on an EVM platform):
 * rpc/ builds the command → `enablePlatformWithTokens` → `CoinRegistry.activate`: admission (the
 * coin's machine, `assertCanActivate`), then `planPlatform` here → the family's `plan`
 * (`infra/evm/evmPlan.ts`, which runs the shared checks of `platformPlan.ts`), then ACTIVATE →
 * the machine invokes the family router (`ChainFamilies.activate`) → `infra/evm/evmFamily.ts`
 * reads the chain and builds the coin with `platformRead.ts` (HD: `hdActivation.ts` scans through
 * the family's reads) → the machine summarizes it once into `CoinActivated` → the registry
 * answers with coin and summary once that event is durable → rpc/ renders the summary.
 */
export class ActivationService {
  readonly #coins: CoinsCatalog;
  readonly #families: ChainFamilies;
  readonly #registry: CoinRegistry;
  readonly #enabledCoins: EnabledCoinsProjection;
  readonly #hd: HdWallet | undefined;

  constructor(deps: {
    coins: CoinsCatalog;
    families: ChainFamilies;
    registry: CoinRegistry;
    enabledCoins: EnabledCoinsProjection;
    /** Set in HD mode: the wallet's id and the address counts earlier activations recorded. */
    hd?: HdWallet;
  }) {
    this.#coins = deps.coins;
    this.#families = deps.families;
    this.#registry = deps.registry;
    this.#enabledCoins = deps.enabledCoins;
    this.#hd = deps.hd;
  }

  /**
   * Activates a platform with its tokens (`enable_eth_with_tokens`). Checks run in the reference's
   * order (admission, then planning), synchronously up to the chain work, so a bad request
   * registers nothing.
   */
  enablePlatformWithTokens(command: PlatformActivationCommand): Promise<Activation> {
    const { ticker, via } = command;
    return this.#registry.activate({ ticker, via, plan: () => this.planPlatform(command) });
  }

  /**
   * BIP32 path a hardware key reads for `ticker`: the coin's `derivation_path` plus account 0,
   * External chain, address 0 (docs/compatibility.md §6).
   */
  hardwarePath(ticker: string): string {
    const path = this.#coins.find(ticker)?.derivation_path;
    if (path === undefined) {
      const message = `coin ${ticker} has no derivation_path in the coins file: a hardware key cannot derive its address`;
      throw invalidRequest(message);
    }
    return `${path}/0'/0/0`;
  }

  /** Platform config → protocol parse → a family that serves the protocol → the family's checks. */
  planPlatform(command: PlatformActivationCommand): ActivationPlan {
    const { ticker } = command;
    if (command.keyPolicy === KeyPolicy.RemoteWallet) {
      const message = 'RemoteWallet policy needs a connected remote-wallet session; none is known';
      throw errorSentence(ErrorType.PrivKeyNotAllowed, message);
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
    const type = protocolTypeName(parsed.protocol);
    const family = this.#families.serving(CommandKind.Platform, type);
    if (family === undefined) {
      // The reference prints the whole protocol; its type says why, the rest is in error_data.
      const served = listed(this.#families.servedTypes(CommandKind.Platform));
      const message = `Unexpected platform protocol ${type} for ${ticker}: ${command.via} activates ${served} platforms only`;
      throw new ActivationError(ErrorType.UnexpectedPlatformProtocol, message, { ticker, protocol: platform.protocol });
    }
    const plan = family.plan(command, { platform, platformProtocol: parsed.protocol, coins: this.#coins });
    // A hardware key activates the one address the device gave, an Iguana key its one address;
    // an HD mnemonic scans its account.
    const hd = this.#hd;
    if (command.keyPolicy === KeyPolicy.Hardware || hd === undefined) {
      const key = command.keyPolicy === KeyPolicy.Hardware ? SingleAddressKey.Hardware : SingleAddressKey.Iguana;
      requireSingleAddressPath(platform, command.hd?.pathToAddress, key);
      requireSingleAddressScan(platform, command.hd, key);
      return plan;
    }
    const scan = resolveHdScan(platform, command.hd, (account, chain) => hd.known.known(hd.walletId, ticker, account, chain));
    return { ...plan, hd: { ...scan, walletId: hd.walletId } };
  }

  /**
   * Legacy `electrum` (spec 4.6): once admitted, the legacy checks (docs/compatibility.md §9),
   * then the family that serves the coin's protocol over Electrum plans it.
   */
  enableElectrum(command: ElectrumActivationCommand, requestMm2: number | undefined): Promise<Activation> {
    const { ticker, via } = command;
    return this.#registry.activate({ ticker, via, plan: () => this.plan(command, requestMm2) });
  }

  /**
   * Legacy `enable` (spec 4.7): once admitted, the legacy checks (docs/compatibility.md §9; TRON
   * is refused there, as it activates through the v2 methods only), then the family serving the
   * protocol natively (UTXO daemon) or over `urls` (EVM) plans it.
   */
  enableLegacy(command: EnableActivationCommand, requestMm2: number | undefined): Promise<Activation> {
    const { ticker, via } = command;
    return this.#registry.activate({ ticker, via, plan: () => this.plan(command, requestMm2) });
  }

  /**
   * The checks an activation runs once admitted, for any kind of command, without activating or
   * registering anything: the plan, or the first refusal as an `ActivationError`.
   * @param requestMm2 legacy requests only: the request's own `mm2`.
   */
  plan(command: ActivationCommand, requestMm2?: number): ActivationPlan {
    return command.kind === CommandKind.Platform ? this.planPlatform(command) : this.#planLegacy(command.kind, command, requestMm2);
  }

  /**
   * The checks legacy `enable`/`electrum` run after admission (docs/compatibility.md §9): `mm2` is
   * set in the request or the coins file → the entry has a parsable `protocol` → a family serves
   * it for `kind` (TRON never) → no `utxo_merge_params` → with an Iguana key, `path_to_address`
   * names its one address (and is then left out) → that family's own checks.
   */
  #planLegacy(kind: CommandKind, command: LegacyCommand, requestMm2: number | undefined): ActivationPlan {
    const { ticker } = command;
    const entry = this.#coins.find(ticker);
    if (entry?.mm2 === undefined && requestMm2 === undefined) {
      throw invalidRequest('mm2 param is not set neither in coins config nor enable request, assuming that coin is not supported');
    }
    if (entry?.protocol === undefined) {
      throw invalidRequest(
        '"protocol" field is missing in coins file. The file format is deprecated, please execute ./mm2 update_config command to convert it or download a new one',
      );
    }
    const parsed = parseCoinProtocol(entry);
    if (!parsed.ok) throw new ActivationError(ErrorType.CoinProtocolParseError, `Coin ${ticker} protocol parsing failed: ${parsed.error}`);
    const type = protocolTypeName(parsed.protocol);
    if (type === 'TRX' || type === 'TRC20') {
      throw invalidRequest(`${type} protocol is not supported by lp_coininit: TRON coins are activated with enable_eth_with_tokens or task::enable_eth::init`);
    }
    if (parsed.protocol.type === 'Other') {
      throw invalidRequest(`${type} protocol is not supported by lp_coininit: this service does not activate ${type} coins (spec 1.3)`);
    }
    const family = this.#families.serving(kind, type);
    if (family === undefined) {
      throw invalidRequest(`${type} protocol is not supported by ${kind}: ${kind} activates ${listed(this.#families.servedTypes(kind))} coins (spec 1.3)`);
    }
    if (command.utxoMerge !== undefined) {
      throw invalidRequest(
        'utxo_merge_params is not supported: merging UTXOs means signing and broadcasting transactions, which this service never does (it only activates coins); leave utxo_merge_params out or send null',
      );
    }
    let planned: LegacyCommand = command;
    if (this.#hd === undefined && command.pathToAddress !== undefined) {
      // An Iguana key: only the path of its one address passes, and the family plans without it.
      requireSingleAddressPath(entry, command.pathToAddress, SingleAddressKey.Iguana);
      const { pathToAddress: _, ...withoutPath } = command;
      planned = withoutPath;
    }
    return family.plan(planned, { platform: entry, platformProtocol: parsed.protocol, coins: this.#coins });
  }

  /** Enabled coins of this session (platforms, passive ones included, and tokens). */
  enabledCoins(): EnabledCoin[] {
    return this.#enabledCoins.list();
  }

  /** Disables a coin: a token alone, or a platform (passive while tokens remain, unless `force`). */
  async disableCoin(ticker: string, force: boolean): Promise<DisableOutcome> {
    const enabled = this.#enabledCoins.find(ticker);
    if (enabled?.platform !== undefined) {
      const platform = this.#registry.view(enabled.platform).coin;
      await this.#registry.disableToken(enabled.platform, ticker);
      // A passive platform goes with its last token: let go of what it held open too.
      if (platform !== null && this.#registry.view(enabled.platform).state === 'inactive') this.#families.release(platform);
      return { coin: ticker, passivized: false };
    }
    const coin = this.#registry.view(ticker).coin;
    const { passivized } = await this.#registry.disable(ticker, force);
    if (!passivized && coin !== null) this.#families.release(coin);
    return { coin: ticker, passivized };
  }

  /**
   * Live balance of an enabled coin or token, with its address and decimals. A passive platform is
   * hidden, but its tokens still answer (docs/compatibility.md §10), also while it re-activates.
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
    const decimals = token === undefined ? coin.decimals : token.decimals;
    return { address: coin.address, decimals, balance: await this.#families.balance(coin, ticker, signal) };
  }

  /** Lets every enabled coin's family release what it holds open (at stop). */
  releaseAll(): void {
    for (const { coin } of this.#registry.enabled()) if (coin !== null) this.#families.release(coin);
  }
}

/** `A`, `A and B`, `A, B and C`. */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
