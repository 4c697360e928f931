/**
 * The checks of a UTXO, QTUM or QRC20 activation after the legacy pre-checks (spec 4.6, 4.7, 7.2;
 * docs/compatibility.md §9). A QRC20 request's swap contracts come first (qrc20Plan.ts).
 * `electrum`: servers (present, `host:port`), `min_connected` > 0 and <= `max_connected` (default:
 * the number of servers), the address format, for QRC20 its contract. Native `enable`: the address
 * format, for QRC20 its contract, and where the daemon's config file is.
 */
import {
  CommandKind,
  type ElectrumActivationCommand,
  type ElectrumServerSpec,
  type EnableActivationCommand,
  type PlanContext,
  type StandaloneActivationCommand,
} from '../../actors/ports/chainFamily.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { invalidRequest } from '../../spec/errors.ts';
import { parseHostPort } from '../electrum/electrumChannel.ts';
import { resolveAddressPath, type AddressPathRequest } from '../../actors/hdPlan.ts';
import { requiredConfirmations, requiresNotarization } from '../../actors/coinSettings.ts';
import type { AddressPath } from '../../actors/ports/keyProvider.ts';
import { daemonConfPath, type DaemonConfPath } from './daemonConf.ts';
import { planQrc20SwapContracts, planQrc20Token, qrc20DaemonEntry, type Qrc20PlanParams } from './qrc20Plan.ts';
import { COIN_PARAMS, utxoAddressRule, type UtxoAddressRule } from './utxoAddress.ts';

/** What every UTXO plan carries. */
interface UtxoPlanBase {
  readonly entry: CoinEntry;
  /** HD mode: the address to enable (`path_to_address`); default account 0, External, 0. */
  readonly addressPath?: AddressPath;
  readonly addressRule: UtxoAddressRule;
  readonly decimals: number | undefined;
  readonly requiredConfirmations: number;
  readonly requiresNotarization: boolean;
  readonly matureConfirmations: number;
}

/** Validated `electrum` parameters carried in the plan. */
export interface ElectrumPlanParams extends UtxoPlanBase {
  readonly mode: 'electrum';
  readonly servers: readonly ElectrumServerSpec[];
  readonly minConnected: number;
  readonly maxConnected: number;
  /** QRC20 only: the token and swap contracts. */
  readonly qrc20?: Qrc20PlanParams;
}

/** Validated native `enable` parameters: the daemon's config file to read at activation. */
export interface NativePlanParams extends UtxoPlanBase {
  readonly mode: 'native';
  readonly confPath: DaemonConfPath;
  /** The entry the daemon's credentials are read for (a QRC20's platform entry; else the coin's own). */
  readonly daemonEntry: CoinEntry;
  /** QRC20 only: the token and swap contracts. */
  readonly qrc20?: Qrc20PlanParams;
}

export type UtxoPlanParams = ElectrumPlanParams | NativePlanParams;

/** Default coinbase maturity (docs/compatibility.md §9). */
export const MATURE_CONFIRMATIONS_DEFAULT = 100;

export function planElectrum(command: ElectrumActivationCommand, { platform: entry, platformProtocol }: PlanContext): ElectrumPlanParams {
  const swapContracts = platformProtocol.type === 'QRC20' ? planQrc20SwapContracts(command) : undefined;
  const servers = command.servers;
  if (servers === undefined) throw invalidRequest('servers: a list of electrum servers ({"url": "host:port", "protocol": "TCP"|"SSL"|"WSS"}) is required');
  servers.forEach((server, i) => {
    if (parseHostPort(server.url) === undefined) throw invalidRequest(`servers[${i}].url ${JSON.stringify(server.url.slice(0, 100))}: expected host:port`);
  });
  const minConnected = command.minConnected ?? 1;
  const maxConnected = command.maxConnected ?? servers.length;
  if (minConnected < 1) throw invalidRequest('min_connected should be greater than 0');
  if (minConnected > maxConnected) throw invalidRequest(`min_connected (${minConnected}) must be <= max_connected (${maxConnected})`);
  const base = planBase(command, entry, command.addressFormat);
  const qrc20 = planQrc20Token(command.ticker, platformProtocol, swapContracts);
  return {
    ...base,
    mode: 'electrum',
    servers,
    minConnected,
    maxConnected,
    // A QRC20's decimals come from the contract when the coins file has none.
    ...(qrc20 === undefined ? {} : { qrc20, decimals: entry.decimals }),
  };
}

/**
 * Native `enable` of a UTXO or QTUM coin or a QRC20 token: the address and where the daemon's
 * config is (a QRC20 token's is its platform's).
 */
export function planNative(command: EnableActivationCommand, { platform: entry, platformProtocol, coins }: PlanContext): NativePlanParams {
  if (command.gasStation !== undefined) {
    // A station prices EVM gas; a UTXO fee (and a QRC20's gas, paid in QTUM) is not priced by one.
    throw invalidRequest(`gas_station_url: ${command.ticker} is a ${platformProtocol.type} coin, whose fees no gas station prices; gas stations apply to EVM coins`);
  }
  const swapContracts = platformProtocol.type === 'QRC20' ? planQrc20SwapContracts(command) : undefined;
  const base = planBase(command, entry, command.addressFormat);
  const qrc20 = planQrc20Token(command.ticker, platformProtocol, swapContracts);
  const daemonEntry = platformProtocol.type === 'QRC20' ? qrc20DaemonEntry(entry, platformProtocol.platform, coins) : entry;
  const conf = daemonConfPath(daemonEntry);
  if ('problem' in conf) throw invalidRequest(conf.problem);
  return { ...base, mode: 'native', confPath: conf, daemonEntry, ...(qrc20 === undefined ? {} : { qrc20, decimals: entry.decimals }) };
}

/**
 * A coin on its own through `task::enable_utxo` / `task::enable_qtum` (the reference's
 * `UtxoActivationParams`): the coins-file values the request repeats must be the coin's, then the
 * checks of legacy `electrum` (`mode.rpc` Electrum, its `rpc_data`) or of native `enable`
 * (`mode.rpc` Native). The top-level `max_connected` the reference's client repeats must be the
 * one `rpc_data` decides (given, or its default); a native daemon takes none.
 */
export function planStandalone(command: StandaloneActivationCommand, context: PlanContext): UtxoPlanParams {
  requireRepeatedCoinFields(command, context.platform);
  const { ticker, via, mode, repeatedMaxConnected } = command;
  const shared = {
    ticker,
    via,
    ...(command.requiredConfirmations === undefined ? {} : { requiredConfirmations: command.requiredConfirmations }),
    ...(command.requiresNotarization === undefined ? {} : { requiresNotarization: command.requiresNotarization }),
    ...(command.addressFormat === undefined ? {} : { addressFormat: command.addressFormat }),
  };
  if (mode.rpc === 'Native') {
    if (repeatedMaxConnected !== undefined) {
      throw invalidRequest('params.activation_params.max_connected: a native daemon (mode.rpc Native) has no electrum servers to keep connected; leave max_connected out');
    }
    return planNative({ kind: CommandKind.Enable, urls: undefined, ...shared }, context);
  }
  const connections = {
    ...(mode.minConnected === undefined ? {} : { minConnected: mode.minConnected }),
    ...(mode.maxConnected === undefined ? {} : { maxConnected: mode.maxConnected }),
  };
  const params = planElectrum({ kind: CommandKind.Electrum, servers: mode.servers, ...connections, ...shared }, context);
  if (repeatedMaxConnected !== undefined && repeatedMaxConnected !== params.maxConnected) {
    const decided = mode.maxConnected === undefined ? `${params.maxConnected}, its default: every server given` : `${params.maxConnected}`;
    throw invalidRequest(
      `params.activation_params.max_connected (${repeatedMaxConnected}) differs from mode.rpc_data.max_connected (${decided}): the servers kept connected are rpc_data's; send the same value or leave it out`,
    );
  }
  return params;
}

/**
 * Each repeated coins-file value must be the coin's: addresses, keys and fees come from the coins
 * file (as in the reference, which ignores these request fields), so a different value would be
 * accepted and not done.
 */
function requireRepeatedCoinFields(command: StandaloneActivationCommand, entry: CoinEntry): void {
  for (const { name, value } of command.repeatedCoinFields) {
    const own = COIN_PARAMS[name as keyof typeof COIN_PARAMS]?.(entry);
    if (own === undefined) throw invalidRequest(`params.activation_params.${name}: not a coin parameter this service knows`);
    if (value !== own) {
      throw invalidRequest(
        `params.activation_params.${name}: ${value} differs from ${command.ticker}'s ${own} (its coins file entry or the default); this service takes ${name} from the coins file only, so send ${own} or leave it out`,
      );
    }
  }
}

/** The address rule (the request may override the entry's format) and the confirmations. */
function planBase(
  command: {
    readonly ticker: string;
    readonly requiredConfirmations?: number;
    readonly requiresNotarization?: boolean;
    readonly pathToAddress?: AddressPathRequest;
  },
  entry: CoinEntry,
  addressFormat: ElectrumActivationCommand['addressFormat'],
): UtxoPlanBase {
  const rule = utxoAddressRule(entry, addressFormat);
  if ('problem' in rule) throw invalidRequest(`${command.ticker}: ${rule.problem}`);
  return {
    entry,
    ...(command.pathToAddress === undefined ? {} : { addressPath: resolveAddressPath(entry, command.pathToAddress) }),
    addressRule: rule.rule,
    decimals: entry.decimals ?? 8,
    requiredConfirmations: requiredConfirmations(command.requiredConfirmations, entry),
    requiresNotarization: requiresNotarization(command.requiresNotarization, entry),
    matureConfirmations: entry.mature_confirmations ?? MATURE_CONFIRMATIONS_DEFAULT,
  };
}
