/**
 * The node configuration file `MM2.json` (docs/compatibility.md §4, §5). Unknown keys are allowed so
 * later features (`nats`, `node_id`, hardware timeouts, …) can add theirs without breaking old
 * files. The password policy and the `rpcip` address check run in `infra/config`, not here.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { WireNames } from './wireNames.ts';

/** Defaults applied when a key is absent. `dbdir` is resolved against the working directory. */
export const NODE_CONFIG_DEFAULTS = {
  enable_hd: false,
  rpcip: '127.0.0.1',
  rpcport: 7783,
  dbdir: './DB',
  allow_weak_password: false,
  /** Seconds between two reads of an active coin's gas station. @default 60 */
  gas_station_refresh_s: 60,
} as const;

/** Defaults of `event_streaming_configuration` (also used when the key is absent). */
export const EVENT_STREAMING_DEFAULTS = {
  access_control_allow_origin: '*',
  heartbeat_interval_s: 15,
  max_buffered_bytes: 1_048_576,
} as const;

/** The longest wait a timer can run (2^31 - 1 ms, whole seconds); a longer one would fire at once. */
const MAX_TIMER_S = 2_147_483;

/** Schema of `MM2.json`. Each property's `description` is the expectation quoted in error messages. */
export const NodeConfigFileSchema = Type.Object(
  {
    rpc_password: Type.String({ minLength: 1, description: 'a non-empty string' }),
    passphrase: Type.Optional(
      Type.String({ minLength: 1, description: 'a non-empty string (WIF, 0x-hex key, seed words or a mnemonic)' }),
    ),
    enable_hd: Type.Boolean({ default: NODE_CONFIG_DEFAULTS.enable_hd, description: 'true or false' }),
    rpcip: Type.String({ default: NODE_CONFIG_DEFAULTS.rpcip, description: 'an IPv4 or IPv6 address' }),
    rpcport: Type.Integer({
      minimum: 1,
      maximum: 65535,
      default: NODE_CONFIG_DEFAULTS.rpcport,
      description: 'an integer from 1 to 65535',
    }),
    dbdir: Type.String({ minLength: 1, default: NODE_CONFIG_DEFAULTS.dbdir, description: 'a directory path' }),
    gui: Type.Optional(Type.String({ description: 'a string naming the client' })),
    /** The reference's name of the node's wallet, answered by `get_wallet_names` (docs/compatibility.md §19). */
    wallet_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'a wallet name of 1 to 255 characters' })),
    netid: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'an integer from 0 to 65535' })),
    allow_weak_password: Type.Boolean({
      default: NODE_CONFIG_DEFAULTS.allow_weak_password,
      description: 'true or false',
    }),
    /** As the reference: EVM coins that trade must then be activated with their `swap_v2_contracts`. @default false */
    use_trading_proto_v2: Type.Boolean({ default: false, description: 'true or false' }),
    coins: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'an array of coin entries (used instead of the coins file)' }),
    ),
    node_id: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: '1 to 64 letters, digits, `_` or `-`' }),
    ),
    nats: Type.Optional(
      Type.Object(
        {
          url: Type.Optional(Type.String({ minLength: 1 })),
          servers: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
          name: Type.Optional(Type.String()),
          user: Type.Optional(Type.String()),
          pass: Type.Optional(Type.String()),
          token: Type.Optional(Type.String()),
          creds_file: Type.Optional(Type.String()),
          tls: Type.Optional(
            Type.Object(
              { ca_file: Type.Optional(Type.String()), cert_file: Type.Optional(Type.String()), key_file: Type.Optional(Type.String()) },
              { additionalProperties: false },
            ),
          ),
          stream_replicas: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
          stream_max_age_s: Type.Integer({ minimum: 0, default: 0 }),
          projector: Type.Union([Type.Literal('embedded'), Type.Literal('external')], { default: 'embedded' }),
        },
        {
          additionalProperties: false,
          description: 'an object {url | servers, user, pass, token, creds_file, tls, stream_replicas, stream_max_age_s, projector}',
        },
      ),
    ),
    electrum: Type.Object(
      {
        ca_file: Type.Optional(Type.String({ minLength: 1 })),
        request_timeout_s: Type.Number({ exclusiveMinimum: 0, default: 20 }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'an object {ca_file (PEM of extra CAs trusted for SSL/WSS servers), request_timeout_s}',
      },
    ),
    /** Seconds between two reads of an active EVM coin's gas station (issue 13). @default 60 */
    gas_station_refresh_s: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_TIMER_S,
      default: NODE_CONFIG_DEFAULTS.gas_station_refresh_s,
      description: 'a number of seconds, more than 0 and at most 2147483',
    }),
    /**
     * The reference's switch of its event stream (docs/streaming.md). Streaming is on without it
     * too; `worker_path` (WebAssembly builds only) is refused.
     */
    event_streaming_configuration: Type.Optional(
      Type.Object(
        {
          /** `Access-Control-Allow-Origin` of `/event-stream` and `/events`. @default '*' (as the reference) */
          access_control_allow_origin: Type.String({ minLength: 1, default: EVENT_STREAMING_DEFAULTS.access_control_allow_origin }),
          /** Seconds between two `heartbeat` frames. @default 15 */
          heartbeat_interval_s: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_S, default: EVENT_STREAMING_DEFAULTS.heartbeat_interval_s }),
          /** Bytes a connection may have waiting in its socket before it is closed as too slow. @default 1 MiB */
          max_buffered_bytes: Type.Integer({ minimum: 1024, default: EVENT_STREAMING_DEFAULTS.max_buffered_bytes }),
        },
        {
          additionalProperties: false,
          description:
            'an object {access_control_allow_origin ("*" or an origin such as "http://localhost:3000"), heartbeat_interval_s (seconds, more than 0), max_buffered_bytes (an integer, at least 1024)}',
        },
      ),
    ),
    hardware_wallet: Type.Object(
      {
        udp_host: Type.String({ default: '127.0.0.1' }),
        udp_port: Type.Integer({ minimum: 1, maximum: 65535, default: 21324 }),
        connect_timeout_s: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_S, default: 300 }),
        pin_timeout_s: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_S, default: 300 }),
        confirm_timeout_s: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIMER_S, default: 300 }),
      },
      {
        default: {},
        additionalProperties: false,
        description: 'an object {udp_host, udp_port, connect_timeout_s, pin_timeout_s, confirm_timeout_s}',
      },
    ),
    /**
     * The names task statuses are written in (docs/compatibility.md §17): the spec's, or the
     * reference implementation's for its existing clients. @default 'neutral'
     */
    wire_names: Type.Union([Type.Literal(WireNames.Neutral), Type.Literal(WireNames.Reference)], {
      default: WireNames.Neutral,
      description: '"neutral" (the spec\'s names, the default) or "reference" (the reference implementation\'s names, e.g. WaitingForTrezorToConnect)',
    }),
    /** `GET /metrics` (issue 15): `public: true` answers it without the RPC password. @default { public: false } */
    metrics: Type.Object(
      { public: Type.Boolean({ default: false }) },
      { default: {}, additionalProperties: false, description: 'an object {public (true or false)}' },
    ),
  },
  { additionalProperties: true },
);

/** `MM2.json` after defaults are applied. */
export type NodeConfigFile = Static<typeof NodeConfigFileSchema>;

/** Compiled validator; `decode` fills the defaults. */
export const nodeConfigFileValidator = compile(NodeConfigFileSchema);

/** Keys whose values are secrets: never echoed in messages, logs or events. */
export const SECRET_CONFIG_KEYS = ['rpc_password', 'passphrase', 'nats.pass', 'nats.token'] as const;
