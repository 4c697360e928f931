/**
 * The legacy `electrum` checks of a UTXO, QTUM or QRC20 coin (spec 4.6, 7.2; notes §9), after the
 * legacy pre-checks: servers (present, `host:port`), `min_connected` > 0 and <= `max_connected`
 * (default: the number of servers), the address format, and for QRC20 its contract.
 */
import type { ElectrumActivationCommand, ElectrumServerSpec, PlanContext } from '../../actors/chainFamily.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { ActivationError, ErrorType } from '../../spec/errors.ts';
import { parseHostPort } from '../electrum/electrumChannel.ts';
import { utxoAddressRule, type UtxoAddressRule } from './utxoAddress.ts';

/** Validated parameters carried in the plan. */
export interface ElectrumPlanParams {
  readonly entry: CoinEntry;
  readonly servers: readonly ElectrumServerSpec[];
  readonly minConnected: number;
  readonly maxConnected: number;
  readonly addressRule: UtxoAddressRule;
  readonly decimals: number | undefined;
  readonly requiredConfirmations: number;
  readonly requiresNotarization: boolean;
  readonly matureConfirmations: number;
  /** QRC20 only: the token contract (40 hex digits, no `0x`). */
  readonly qrc20Contract?: string;
}

/** Default coinbase maturity (notes §9). */
export const MATURE_CONFIRMATIONS_DEFAULT = 100;

const HEX40 = /^(?:0x)?([0-9a-fA-F]{40})$/;

/** A refusal in the legacy form: only the message reaches the client. */
export function legacyRefusal(message: string, type: ErrorType = ErrorType.InvalidRequest): ActivationError {
  return new ActivationError(type, message, message);
}

export function planElectrum(command: ElectrumActivationCommand, { platform: entry, platformProtocol }: PlanContext): ElectrumPlanParams {
  const servers = command.servers;
  if (servers === undefined) throw legacyRefusal('servers: a list of electrum servers ({"url": "host:port", "protocol": "TCP"|"SSL"|"WSS"}) is required');
  servers.forEach((server, i) => {
    if (parseHostPort(server.url) === undefined) throw legacyRefusal(`servers[${i}].url ${JSON.stringify(server.url.slice(0, 100))}: expected host:port`);
  });
  const minConnected = command.minConnected ?? 1;
  const maxConnected = command.maxConnected ?? servers.length;
  if (minConnected < 1) throw legacyRefusal('min_connected should be greater than 0');
  if (minConnected > maxConnected) throw legacyRefusal(`min_connected (${minConnected}) must be <= max_connected (${maxConnected})`);
  const rule = utxoAddressRule(command.addressFormat === undefined ? entry : { ...entry, address_format: command.addressFormat });
  if ('problem' in rule) throw legacyRefusal(`${command.ticker}: ${rule.problem}`);
  let qrc20Contract: string | undefined;
  if (platformProtocol.type === 'QRC20') {
    qrc20Contract = HEX40.exec(platformProtocol.contractAddress)?.[1]?.toLowerCase();
    if (qrc20Contract === undefined) throw legacyRefusal(`${command.ticker}: QRC20 contract_address must be 40 hex digits`, ErrorType.CoinProtocolParseError);
    for (const [field, value] of [['swap_contract_address', command.swapContractAddress], ['fallback_swap_contract', command.fallbackSwapContract]] as const) {
      if (value !== undefined && !HEX40.test(value)) throw legacyRefusal(`${field}: expected a QRC20 contract address (40 hex digits)`);
    }
  }
  return {
    entry,
    servers,
    minConnected,
    maxConnected,
    addressRule: rule.rule,
    decimals: entry.decimals ?? (qrc20Contract === undefined ? 8 : undefined),
    requiredConfirmations: command.requiredConfirmations ?? entry.required_confirmations ?? 3,
    requiresNotarization: command.requiresNotarization ?? entry.requires_notarization ?? false,
    matureConfirmations: entry.mature_confirmations ?? MATURE_CONFIRMATIONS_DEFAULT,
    ...(qrc20Contract === undefined ? {} : { qrc20Contract }),
  };
}
