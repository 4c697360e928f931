/** Electrum `server.*` methods. */
import { badRequest, ELECTRUM_ERROR_CODES, ElectrumError } from './electrumErrors.ts';
import type { ElectrumMethod } from './methodContext.ts';
import { positional } from './params.ts';

/** What `server.version` and `server.features` report. */
export const ELECTRUM_SERVER_SOFTWARE = 'devnet-electrum 0.1';
/** The one protocol version spoken (min = max). */
export const ELECTRUM_PROTOCOL_VERSION = '1.4';

const BANNER = `${ELECTRUM_SERVER_SOFTWARE}: a Litecoin regtest devnet on 127.0.0.1, for tests only.`;

/** "1.4.2" → [1, 4, 2]; undefined when not dotted numbers. */
function versionTuple(version: unknown): number[] | undefined {
  return typeof version === 'string' && /^\d+(\.\d+)*$/.test(version) ? version.split('.').map(Number) : undefined;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The client's [min, max] from a version string or a two-string array. */
function clientRange(protocolVersion: unknown): [number[], number[]] | undefined {
  const [min, max] = Array.isArray(protocolVersion) && protocolVersion.length === 2 ? protocolVersion : [protocolVersion, protocolVersion];
  const range = [versionTuple(min), versionTuple(max)];
  return range[0] && range[1] ? [range[0], range[1]] : undefined;
}

/**
 * `server.version(client_name="", protocol_version="1.4", …ignored)` → `[software, "1.4"]` when
 * the client's range includes 1.4. Otherwise an error, and the connection is closed after it
 * (ElectrumX's behaviour). Only the first call on a connection is accepted.
 */
const version: ElectrumMethod = async (params, { session }) => {
  if (session.versionNegotiated) throw badRequest('server.version already sent');
  const protocolVersion = params.length > 1 ? params[1] : ELECTRUM_PROTOCOL_VERSION;
  const range = clientRange(protocolVersion);
  const ours = versionTuple(ELECTRUM_PROTOCOL_VERSION)!;
  if (!range || compareVersions(range[0], ours) > 0 || compareVersions(range[1], ours) < 0) {
    throw new ElectrumError(ELECTRUM_ERROR_CODES.badRequest, `unsupported protocol version: ${JSON.stringify(protocolVersion)}`, true);
  }
  session.versionNegotiated = true;
  return [ELECTRUM_SERVER_SOFTWARE, ELECTRUM_PROTOCOL_VERSION];
};

const noParams =
  (result: (context: Parameters<ElectrumMethod>[1]) => unknown): ElectrumMethod =>
  async (params, context) => {
    positional(params, 0, 0);
    return result(context);
  };

export const SERVER_METHODS: Record<string, ElectrumMethod> = {
  'server.version': version,
  'server.ping': noParams(() => null),
  'server.banner': noParams(() => BANNER),
  'server.donation_address': noParams(() => ''),
  'server.features': noParams((context) => context.features()),
  // Not a subscription despite its name: the list of peer servers, none here.
  'server.peers.subscribe': noParams(() => []),
};
