/**
 * The checks an activation runs once admitted (docs/compatibility.md §7, §9), for every kind of
 * command: the coins entry, its protocol, the family that serves it, the key's address rules, then
 * the family's own `plan`. Pure and synchronous: it answers a plan or throws the first refusal as an
 * `ActivationError`, and registers nothing.
 */
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../spec/errors.ts';
import { parseCoinProtocol, protocolTypeName } from '../spec/coins.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { HdAddressesProjection } from '../events/projections/hdAddresses.ts';
import { completeHdScan, deviceWalletId, otherChain, requireSingleAddressPath, requireSingleAddressScan, resolveHdRequest, resolveHdScan, SingleAddressKey } from './hdPlan.ts';
import { ActivationVia, ChainFamilyId, KeyPolicy, type ActivationPlan } from '../machines/activation.types.ts';
import type { DeviceRead } from '../machines/activationTask.machine.ts';
import type { CoinEntry } from '../spec/coins.ts';
import type { HdRequest } from './hdPlan.ts';
import {
  CommandKind,
  type ActivationCommand,
  type ElectrumActivationCommand,
  type EnableActivationCommand,
  type PlatformActivationCommand,
  type StandaloneActivationCommand,
} from './ports/chainFamily.ts';
import type { ChainFamilies } from './chainFamilies.ts';
import { planSettings } from './coinSettings.ts';

type LegacyCommand = ElectrumActivationCommand | EnableActivationCommand;

/** The HD wallet of the session (HD mode only). */
export interface HdWallet {
  readonly walletId: string;
  readonly known: Pick<HdAddressesProjection, 'known'>;
}

export class ActivationPlanner {
  readonly #coins: CoinsCatalog;
  readonly #families: Pick<ChainFamilies, 'serving' | 'servedTypes'>;
  readonly #hd: HdWallet | undefined;
  readonly #recorded: Pick<HdAddressesProjection, 'known'> | undefined;
  readonly #useTradingProtoV2: boolean;

  constructor(deps: {
    coins: CoinsCatalog;
    families: Pick<ChainFamilies, 'serving' | 'servedTypes'>;
    hd?: HdWallet | undefined;
    /**
     * The address counts earlier activations recorded, for every wallet (a device's accounts
     * included, whatever the node's own key). @default deps.hd.known, else none recorded
     */
    recordedAddresses?: Pick<HdAddressesProjection, 'known'> | undefined;
    /** MM2.json `use_trading_proto_v2` (see {@link PlanContext}). @default false */
    useTradingProtoV2?: boolean;
  }) {
    this.#coins = deps.coins;
    this.#families = deps.families;
    this.#hd = deps.hd;
    this.#recorded = deps.recordedAddresses ?? deps.hd?.known;
    this.#useTradingProtoV2 = deps.useTradingProtoV2 ?? false;
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

  /**
   * What a hardware task reads from the device for `plan`: for an account scan (`deviceHd`) the
   * account's public node at `derivation_path/<account>'`, named to the device by the coin's
   * `trezor_coin`; otherwise the key at {@link hardwarePath}.
   */
  hardwareRead(plan: ActivationPlan): DeviceRead {
    if (plan.deviceHd === undefined) return { path: this.hardwarePath(plan.ticker) };
    const entry = this.#coins.find(plan.ticker);
    const { accountId } = plan.deviceHd;
    const path = `${entry!.derivation_path}/${accountId}'`;
    if (plan.family === ChainFamilyId.Evm) return { path, account: { accountId, protocol: 'ethereum' } };
    const coinName = entry?.trezor_coin;
    return { path, account: { accountId, protocol: 'bitcoin', ...(coinName === undefined ? {} : { coinName }) } };
  }

  /**
   * A device account's plan once the device gave the account's node: the scan of `deviceHd`, with
   * what earlier activations of that wallet recorded (the node names the wallet, `deviceWalletId`).
   * Any other plan is returned as it is.
   */
  withDeviceAccount(plan: ActivationPlan): ActivationPlan {
    const { deviceHd, deviceAccount } = plan;
    if (deviceHd === undefined || deviceAccount === undefined) return plan;
    const walletId = deviceWalletId(deviceAccount.publicKeyHex);
    const recorded = (chain: 'External' | 'Internal') => this.#recorded?.known(walletId, plan.ticker, deviceHd.accountId, chain);
    return { ...plan, hd: { ...completeHdScan(deviceHd, recorded(deviceHd.chain), recorded(otherChain(deviceHd.chain))), walletId } };
  }

  /** Platform config → protocol parse → a family that serves the protocol → the family's checks. */
  planPlatform(command: PlatformActivationCommand): ActivationPlan {
    const { ticker } = command;
    refuseRemoteWallet(command.keyPolicy);
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
    const familyPlan = family.plan(command, { platform, platformProtocol: parsed.protocol, coins: this.#coins, useTradingProtoV2: this.#useTradingProtoV2 });
    const plan = { ...familyPlan, settings: planSettings(command, platform, this.#coins, familyPlan) };
    if (command.keyPolicy === KeyPolicy.Hardware && plan.family === ChainFamilyId.Evm) return this.#deviceAccountScan(plan, platform, command.hd);
    return this.#withKeyScope(plan, platform, command.keyPolicy, command.hd);
  }

  /**
   * The plan with what the key activates: a hardware key here (a UTXO coin over a native daemon;
   * elsewhere `#deviceAccountScan`) the one address the device gives, an Iguana key its one address
   * (the HD fields pass only where they ask for no more); an HD mnemonic scans its account.
   */
  #withKeyScope(plan: ActivationPlan, entry: CoinEntry, keyPolicy: KeyPolicy, request: HdRequest | undefined): ActivationPlan {
    const hd = this.#hd;
    if (keyPolicy === KeyPolicy.Hardware || hd === undefined) {
      const key = keyPolicy === KeyPolicy.Hardware ? SingleAddressKey.Hardware : SingleAddressKey.Iguana;
      requireSingleAddressPath(entry, request?.pathToAddress, key);
      requireSingleAddressScan(entry, request, key);
      return plan;
    }
    const scan = resolveHdScan(entry, request, (account, chain) => hd.known.known(hd.walletId, plan.ticker, account, chain));
    return { ...plan, hd: { ...scan, walletId: hd.walletId } };
  }

  /**
   * The checks an activation runs once admitted, for any kind of command, without activating or
   * registering anything: the plan, or the first refusal as an `ActivationError`.
   * @param requestMm2 legacy requests only: the request's own `mm2`.
   */
  plan(command: ActivationCommand, requestMm2?: number): ActivationPlan {
    switch (command.kind) {
      case CommandKind.Platform:
        return this.planPlatform(command);
      case CommandKind.Standalone:
        return this.#planStandalone(command);
      default:
        return this.#planLegacy(command.kind, command, requestMm2);
    }
  }

  /**
   * A coin on its own through a task (`task::enable_utxo`, `task::enable_qtum`), in the reference's
   * order (`init_standalone_coin.rs`): its config (`CoinConfigIsNotFound`) → its protocol
   * (`CoinProtocolParseError`) → the protocol the method activates (`UnexpectedCoinProtocol`) →
   * the key policy → no `utxo_merge_params` → the family's checks → what the key activates.
   */
  #planStandalone(command: StandaloneActivationCommand): ActivationPlan {
    const { ticker, via } = command;
    const entry = this.#coins.find(ticker);
    if (entry === undefined) throw new ActivationError(ErrorType.CoinConfigIsNotFound, `Coin ${ticker} config is not found`, ticker);
    const parsed = parseCoinProtocol(entry);
    if (!parsed.ok) {
      throw new ActivationError(ErrorType.CoinProtocolParseError, `Coin ${ticker} protocol parsing failed: ${parsed.error}`, { ticker, error: parsed.error });
    }
    const type = protocolTypeName(parsed.protocol);
    const wanted = STANDALONE_PROTOCOL[via as keyof typeof STANDALONE_PROTOCOL];
    const family = type === wanted ? this.#families.serving(CommandKind.Standalone, type) : undefined;
    if (family === undefined) {
      const message = `Unexpected protocol ${type} for ${ticker}: ${via} activates ${wanted ?? 'no'} coins only`;
      throw new ActivationError(ErrorType.UnexpectedCoinProtocol, message, { ticker, protocol: entry.protocol });
    }
    refuseRemoteWallet(command.keyPolicy);
    if (command.utxoMerge !== undefined) throw invalidRequest(UTXO_MERGE_REFUSED);
    if (command.mode.rpc === 'Native' && this.#hd !== undefined && command.keyPolicy !== KeyPolicy.Hardware) {
      const message = `activation_params.mode: an HD wallet (enable_hd) scans its account for ${ticker}, which a native daemon cannot serve (it knows only the addresses imported into it); use mode.rpc Electrum`;
      throw invalidRequest(message);
    }
    const familyPlan = family.plan(command, { platform: entry, platformProtocol: parsed.protocol, coins: this.#coins });
    const plan = { ...familyPlan, settings: planSettings(command, entry, this.#coins, familyPlan) };
    if (command.keyPolicy === KeyPolicy.Hardware && command.mode.rpc === 'Electrum') return this.#deviceAccountScan(plan, entry, command.hd);
    return this.#withKeyScope(plan, entry, command.keyPolicy, command.hd);
  }

  /**
   * A device's coin is an HD account, scanned as a mnemonic's (the reference's Trezor is always HD):
   * the HD fields resolved now, the scan completed once the device gave the account's node.
   */
  #deviceAccountScan(plan: ActivationPlan, entry: CoinEntry, request: HdRequest | undefined): ActivationPlan {
    if (entry.derivation_path === undefined) this.hardwarePath(entry.coin); // refuses, naming the coin
    return { ...plan, deviceHd: resolveHdRequest(entry, request) };
  }

  /**
   * The checks legacy `enable`/`electrum` run after admission (docs/compatibility.md §9): `mm2` is
   * set in the request or the coins file → the entry has a parsable `protocol` → a family serves
   * it for `kind` (TRON never) → no `utxo_merge_params` → with an Iguana key, `path_to_address`
   * names its one address (and is then left out) → that family's own checks.
   */
  #planLegacy(kind: typeof CommandKind.Electrum | typeof CommandKind.Enable, command: LegacyCommand, requestMm2: number | undefined): ActivationPlan {
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
    if (command.utxoMerge !== undefined) throw invalidRequest(UTXO_MERGE_REFUSED);
    let planned: LegacyCommand = command;
    if (this.#hd === undefined && command.pathToAddress !== undefined) {
      // An Iguana key: only the path of its one address passes, and the family plans without it.
      requireSingleAddressPath(entry, command.pathToAddress, SingleAddressKey.Iguana);
      const { pathToAddress: _, ...withoutPath } = command;
      planned = withoutPath;
    }
    const plan = family.plan(planned, { platform: entry, platformProtocol: parsed.protocol, coins: this.#coins, useTradingProtoV2: this.#useTradingProtoV2 });
    const mm2 = requestMm2 === undefined ? {} : { mm2: requestMm2 };
    return { ...plan, settings: planSettings({ ...command, ...mm2 }, entry, this.#coins, plan) };
  }
}

/** The coins-file protocol each standalone task activates (the reference's task per protocol). */
const STANDALONE_PROTOCOL = { [ActivationVia.EnableUtxoTask]: 'UTXO', [ActivationVia.EnableQtumTask]: 'QTUM' } as const;

const UTXO_MERGE_REFUSED =
  'utxo_merge_params is not supported: merging UTXOs means signing and broadcasting transactions, which this service never does (it only activates coins); leave utxo_merge_params out or send null';

/** A remote wallet needs a session this service never has. */
function refuseRemoteWallet(keyPolicy: KeyPolicy): void {
  if (keyPolicy === KeyPolicy.RemoteWallet) {
    throw errorSentence(ErrorType.PrivKeyNotAllowed, 'RemoteWallet policy needs a connected remote-wallet session; none is known');
  }
}

/** `A`, `A and B`, `A, B and C`. */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
