import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { AddressPath, Nullable, PrivKeyPolicyType } from './enableEthWithTokens.ts';
import { AddressFormatRequest, ElectrumServerParams, UtxoMergeParams } from './legacyElectrum.ts';

/** `mode.rpc_data` of an Electrum activation: the servers and how many to keep connected (spec 4.6's rules). */
export const ElectrumRpcData = Type.Object({
  servers: Type.Array(ElectrumServerParams),
  min_connected: Type.Optional(Type.Integer({ minimum: 0 })),
  max_connected: Type.Optional(Type.Integer({ minimum: 0 })),
});

/**
 * `activation_params.mode` (the reference's `UtxoRpcMode`, tagged by `rpc` with its content in
 * `rpc_data`): Electrum servers, or the coin's native daemon (as legacy `enable`, spec 4.7).
 */
export const UtxoRpcMode = Type.Union([
  Type.Object({ rpc: Type.Literal('Electrum'), rpc_data: ElectrumRpcData }),
  Type.Object({ rpc: Type.Literal('Native'), rpc_data: Type.Optional(Type.Null()) }),
]);

/**
 * The coins-file fields the reference's client repeats in every UTXO request (its own coins config
 * copied in): accepted only when equal to the coin's value here (the coins file, else the
 * reference's default), refused by name otherwise (docs/rpc.md).
 */
export const RepeatedCoinFields = {
  pubtype: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  p2shtype: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  wiftype: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  txversion: Type.Optional(Type.Integer()),
  overwintered: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  txfee: Type.Optional(Type.Integer({ minimum: 0 })),
  dust_amount: Type.Optional(Type.Integer({ minimum: 0 })),
};
export const REPEATED_COIN_FIELDS = Object.keys(RepeatedCoinFields) as (keyof typeof RepeatedCoinFields)[];

/**
 * `activation_params` of `task::enable_utxo::init` and `task::enable_qtum::init` (the reference's
 * `UtxoActivationParams`, `mm2src/coins/utxo.rs`). `priv_key_policy` is a bare string here.
 */
export const UtxoActivationParams = Type.Object({
  mode: UtxoRpcMode,
  priv_key_policy: Type.Optional(PrivKeyPolicyType),
  // No defaults: an absent value falls back to the coins entry, then to the spec's default.
  required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  requires_notarization: Type.Optional(Type.Boolean()),
  tx_history: Type.Optional(Type.Boolean()),
  address_format: Type.Optional(AddressFormatRequest),
  utxo_merge_params: Type.Optional(Nullable(UtxoMergeParams)),
  // HD fields, as in task::enable_eth (spec 4.1).
  gap_limit: Type.Optional(Type.Integer({ minimum: 0 })),
  min_addresses_number: Type.Optional(Type.Integer({ minimum: 0 })),
  scan_policy: Type.Optional(Type.Union([Type.Literal('do_not_scan'), Type.Literal('scan_if_new_wallet'), Type.Literal('scan')])),
  path_to_address: Type.Optional(AddressPath),
  /** The client repeats `rpc_data.max_connected` here: accepted when equal to it. */
  max_connected: Type.Optional(Type.Integer({ minimum: 0 })),
  ...RepeatedCoinFields,
});
export type UtxoActivationParams = Static<typeof UtxoActivationParams>;

/** `task::enable_utxo::init` / `task::enable_qtum::init` params: the coin, its `activation_params`, and `client_id`. */
export const EnableUtxoTaskInitParams = Type.Object({
  ticker: Type.String({ minLength: 1 }),
  activation_params: UtxoActivationParams,
  client_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});
export type EnableUtxoTaskInitParams = Static<typeof EnableUtxoTaskInitParams>;
export const enableUtxoTaskInitParams = compile(EnableUtxoTaskInitParams);
