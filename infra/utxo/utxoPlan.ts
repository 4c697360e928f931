/**
 * The checks of a UTXO, QTUM or QRC20 activation after the legacy pre-checks (spec 4.6, 4.7, 7.2;
 * docs/compatibility.md §9). `electrum`: servers (present, `host:port`), `min_connected` > 0 and <=
 * `max_connected` (default: the number of servers), the address format, for QRC20 its contract.
 * Native `enable`: the address format and where the daemon's config file is.
 */
import type { ElectrumActivationCommand, ElectrumServerSpec, EnableActivationCommand, PlanContext } from '../../actors/ports/chainFamily.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { ErrorType, errorSentence, invalidRequest } from '../../spec/errors.ts';
import { parseHostPort } from '../electrum/electrumChannel.ts';
import { resolveAddressPath, type AddressPathRequest } from '../../actors/hdPlan.ts';
import type { AddressPath } from '../../actors/ports/keyProvider.ts';
import { daemonConfPath } from './daemonConf.ts';
import { utxoAddressRule, type UtxoAddressRule } from './utxoAddress.ts';

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
  /** QRC20 only: the token contract (40 hex digits, no `0x`). */
  readonly qrc20Contract?: string;
}

/** Validated native `enable` parameters: the daemon's config file to read at activation. */
export interface NativePlanParams extends UtxoPlanBase {
  readonly mode: 'native';
  readonly confPath: string;
}

export type UtxoPlanParams = ElectrumPlanParams | NativePlanParams;

/** Default coinbase maturity (docs/compatibility.md §9). */
export const MATURE_CONFIRMATIONS_DEFAULT = 100;

const HEX40 = /^(?:0x)?([0-9a-fA-F]{40})$/;

export function planElectrum(command: ElectrumActivationCommand, { platform: entry, platformProtocol }: PlanContext): ElectrumPlanParams {
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
  let qrc20Contract: string | undefined;
  if (platformProtocol.type === 'QRC20') {
    qrc20Contract = HEX40.exec(platformProtocol.contractAddress)?.[1]?.toLowerCase();
    if (qrc20Contract === undefined) throw errorSentence(ErrorType.CoinProtocolParseError, `${command.ticker}: QRC20 contract_address must be 40 hex digits`);
    for (const [field, value] of [['swap_contract_address', command.swapContractAddress], ['fallback_swap_contract', command.fallbackSwapContract]] as const) {
      if (value !== undefined && !HEX40.test(value)) throw invalidRequest(`${field}: expected a QRC20 contract address (40 hex digits)`);
    }
  }
  return {
    ...base,
    mode: 'electrum',
    servers,
    minConnected,
    maxConnected,
    ...(qrc20Contract === undefined ? {} : { qrc20Contract, decimals: entry.decimals }),
  };
}

/** Native `enable` of a UTXO or QTUM coin: the address and where the daemon's config is. */
export function planNative(command: EnableActivationCommand, { platform: entry }: PlanContext): NativePlanParams {
  const base = planBase(command, entry, undefined);
  const conf = daemonConfPath(entry);
  if ('problem' in conf) throw invalidRequest(conf.problem);
  return { ...base, mode: 'native', confPath: conf.path };
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
    requiredConfirmations: command.requiredConfirmations ?? entry.required_confirmations ?? 3,
    requiresNotarization: command.requiresNotarization ?? entry.requires_notarization ?? false,
    matureConfirmations: entry.mature_confirmations ?? MATURE_CONFIRMATIONS_DEFAULT,
  };
}
