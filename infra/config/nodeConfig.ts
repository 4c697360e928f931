/**
 * Turns the parsed `MM2.json` value into a typed {@link NodeSettings}: schema with defaults
 * (spec/config.ts), the `rpcip` address check and the password policy. Pure; secrets are wrapped
 * in {@link Secret} and never appear in an error message.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { EVENT_STREAMING_DEFAULTS, NodeConfigFileSchema, nodeConfigFileValidator, type NodeConfigFile } from '../../spec/config.ts';
import type { SchemaProblem } from '../../spec/validate.ts';
import type { WireNames } from '../../spec/wireNames.ts';
import { ConfigError } from './configError.ts';
import { deepFreeze } from './deepFreeze.ts';
import { describePasswordViolations, passwordViolations } from './passwordPolicy.ts';
import { Secret } from './secret.ts';

/** The node settings from `MM2.json`, with defaults applied (coins excluded). */
/** The `nats` key: connection, credentials (secrets wrapped) and stream settings. */
export interface NatsSettings {
  readonly servers: readonly string[];
  readonly name: string | undefined;
  readonly user: string | undefined;
  readonly pass: Secret | undefined;
  readonly token: Secret | undefined;
  readonly credsFile: string | undefined;
  readonly tls: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string } | undefined;
  readonly streamReplicas: number;
  readonly streamMaxAgeSeconds: number;
  /** `embedded`: this service runs the KV projector; `external`: `npm run projector` does. */
  readonly projector: 'embedded' | 'external';
}

/** The event stream's settings (`/event-stream`, `/events`). */
export interface EventStreamingSettings {
  /** `Access-Control-Allow-Origin` of the stream responses: `*` or one origin. @default '*' */
  readonly corsOrigin: string;
  /** Time between two `heartbeat` frames. @default 15 000 ms */
  readonly heartbeatMs: number;
  /** Socket backlog above which a client is closed as too slow. @default 1 MiB */
  readonly maxBufferedBytes: number;
}

export interface NodeSettings {
  readonly rpcPassword: Secret;
  readonly passphrase: Secret | undefined;
  readonly enableHd: boolean;
  readonly rpcip: string;
  readonly rpcport: number;
  /** Absolute path: `dbdir` resolved against the working directory. */
  readonly dbdir: string;
  readonly gui: string | undefined;
  /** `wallet_name`: the wallet `get_wallet_names` reports (none when absent). */
  readonly walletName: string | undefined;
  readonly netid: number | undefined;
  readonly allowWeakPassword: boolean;
  /** `use_trading_proto_v2`: v2 EVM activations of trading coins require `swap_v2_contracts`. @default false */
  readonly useTradingProtoV2: boolean;
  /** `node_id` as configured; the service derives a default from the wallet's public key. */
  readonly nodeId: string | undefined;
  /** NATS JetStream, when configured; otherwise the embedded event log alone is used. */
  readonly nats: NatsSettings | undefined;
  /** Electrum clients: extra trusted CAs (absolute path of a PEM file) and the request budget. */
  readonly electrum: { readonly caFile: string | undefined; readonly requestTimeoutMs: number };
  /** Time between two reads of an active coin's gas station (`gas_station_refresh_s`, @default 60 s). */
  readonly gasStationRefreshMs: number;
  /** Hardware-wallet transport (emulator-protocol UDP) and the waits of a hardware task. */
  readonly hardwareWallet: {
    readonly udpHost: string;
    readonly udpPort: number;
    readonly connectTimeoutMs: number;
    readonly pinTimeoutMs: number;
    readonly confirmTimeoutMs: number;
  };
  /** `event_streaming_configuration`, or its defaults when absent (streaming is always on). */
  readonly eventStreaming: EventStreamingSettings;
  /** `metrics.public`: `GET /metrics` answers without the RPC password. @default false */
  readonly metrics: { readonly public: boolean };
  /** `wire_names`: the names task statuses are written in on the RPC and `/event-stream`. @default 'neutral' */
  readonly wireNames: WireNames;
  /** The inline `coins` array, when MM2.json has one (it then replaces the coins file). */
  readonly inlineCoins: readonly unknown[] | undefined;
  /** Keys this schema does not know, verbatim and frozen, for later features (`nats`, `node_id`, …). */
  readonly extras: Readonly<Record<string, unknown>>;
}

const KNOWN_KEYS = new Set(Object.keys(NodeConfigFileSchema.properties));

/** `must be <description>` for a top-level key, else the validator's own message. */
function explain(problem: SchemaProblem): string {
  const top = problem.field.split(/[.[]/)[0] ?? '';
  const schema = (NodeConfigFileSchema.properties as Record<string, { description?: string }>)[top];
  const expected = top === problem.field ? schema?.description : undefined;
  if (problem.message === 'Expected required property') return `is missing; must be ${expected ?? 'set'}`;
  return expected === undefined ? problem.message : `must be ${expected}`;
}

/**
 * Validates the parsed `MM2.json` value. `label` names the file in messages (e.g. `MM2.json`);
 * `cwd` resolves `dbdir`. Throws a one-line {@link ConfigError} on the first problem.
 */
export function parseNodeSettings(value: unknown, label: string, cwd: string): NodeSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('(root)', `${label}: must be a JSON object`);
  }
  const decoded = nodeConfigFileValidator.decode(value);
  if (!decoded.ok) {
    const { field } = decoded.problem;
    throw new ConfigError(field, `${label}: ${field}: ${explain(decoded.problem)}`);
  }
  const file = decoded.value;
  if (isIP(file.rpcip) === 0) {
    throw new ConfigError('rpcip', `${label}: rpcip: must be an IPv4 or IPv6 address`);
  }
  if (!file.allow_weak_password) {
    const violations = passwordViolations(file.rpc_password);
    if (violations.length > 0) {
      throw new ConfigError(
        'rpc_password',
        `${label}: rpc_password: ${describePasswordViolations(violations)}` +
          ' (or set "allow_weak_password": true to accept a weak password)',
      );
    }
  }
  const extras: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(file)) if (!KNOWN_KEYS.has(key)) extras[key] = v;
  return {
    rpcPassword: new Secret(file.rpc_password),
    passphrase: file.passphrase === undefined ? undefined : new Secret(file.passphrase),
    enableHd: file.enable_hd,
    rpcip: file.rpcip,
    rpcport: file.rpcport,
    dbdir: resolve(cwd, file.dbdir),
    gui: file.gui,
    walletName: file.wallet_name,
    netid: file.netid,
    allowWeakPassword: file.allow_weak_password,
    useTradingProtoV2: file.use_trading_proto_v2,
    nodeId: file.node_id,
    nats: file.nats === undefined ? undefined : natsSettings(file.nats, label, cwd),
    electrum: {
      caFile: file.electrum.ca_file === undefined ? undefined : resolve(cwd, file.electrum.ca_file),
      requestTimeoutMs: Math.round(file.electrum.request_timeout_s * 1000),
    },
    gasStationRefreshMs: Math.round(file.gas_station_refresh_s * 1000),
    hardwareWallet: {
      udpHost: file.hardware_wallet.udp_host,
      udpPort: file.hardware_wallet.udp_port,
      connectTimeoutMs: Math.round(file.hardware_wallet.connect_timeout_s * 1000),
      pinTimeoutMs: Math.round(file.hardware_wallet.pin_timeout_s * 1000),
      confirmTimeoutMs: Math.round(file.hardware_wallet.confirm_timeout_s * 1000),
    },
    eventStreaming: eventStreamingSettings(file.event_streaming_configuration, label),
    metrics: { public: file.metrics.public },
    wireNames: file.wire_names,
    inlineCoins: file.coins,
    extras: deepFreeze(extras),
  };
}

/** Validates the parts of `nats` the schema cannot (one of url/servers; TLS key with cert). */
function natsSettings(nats: NonNullable<NodeConfigFile['nats']>, label: string, cwd: string): NatsSettings {
  const servers = nats.servers ?? (nats.url === undefined ? [] : [nats.url]);
  if (servers.length === 0) throw new ConfigError('nats.url', `${label}: nats.url: is missing; set "url" (or "servers")`);
  for (const [i, server] of servers.entries()) {
    if (!/^(nats|tls|wss?):\/\/[^/\s]+$/.test(server)) {
      throw new ConfigError(`nats.servers[${i}]`, `${label}: nats: server ${i + 1} must look like nats://host:port`);
    }
  }
  if ((nats.tls?.cert_file === undefined) !== (nats.tls?.key_file === undefined)) {
    throw new ConfigError('nats.tls', `${label}: nats.tls: cert_file and key_file go together`);
  }
  const file = (path: string | undefined) => (path === undefined ? undefined : resolve(cwd, path));
  const tls = nats.tls === undefined ? undefined : {
    ...(nats.tls.ca_file === undefined ? {} : { caFile: file(nats.tls.ca_file)! }),
    ...(nats.tls.cert_file === undefined ? {} : { certFile: file(nats.tls.cert_file)! }),
    ...(nats.tls.key_file === undefined ? {} : { keyFile: file(nats.tls.key_file)! }),
  };
  return {
    servers,
    name: nats.name,
    user: nats.user,
    pass: nats.pass === undefined ? undefined : new Secret(nats.pass),
    token: nats.token === undefined ? undefined : new Secret(nats.token),
    credsFile: file(nats.creds_file),
    tls,
    streamReplicas: nats.stream_replicas,
    streamMaxAgeSeconds: nats.stream_max_age_s,
    projector: nats.projector,
  };
}

/**
 * `event_streaming_configuration` (or its defaults): the CORS origin must be `*` or a bare origin
 * (`scheme://host[:port]`), so a typo or a path cannot reach a response header.
 */
function eventStreamingSettings(value: NodeConfigFile['event_streaming_configuration'], label: string): EventStreamingSettings {
  const v = value ?? EVENT_STREAMING_DEFAULTS;
  const origin = v.access_control_allow_origin;
  if (origin !== '*' && !isBareOrigin(origin)) {
    throw new ConfigError(
      'event_streaming_configuration.access_control_allow_origin',
      `${label}: event_streaming_configuration.access_control_allow_origin: must be "*" or an origin such as "http://localhost:3000" (scheme, host and port only)`,
    );
  }
  return { corsOrigin: origin, heartbeatMs: Math.round(v.heartbeat_interval_s * 1000), maxBufferedBytes: v.max_buffered_bytes };
}

function isBareOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}
