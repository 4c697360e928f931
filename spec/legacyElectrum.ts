import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { REQUEST_DEFAULTS } from './requestDefaults.ts';
import { AddressPath, Nullable, SwapContractFields } from './enableEthWithTokens.ts';

/** spec 2.2 ActivationServers: `host:port` and its transport (default `TCP`, docs/compatibility.md §9). */
export const ElectrumServerParams = Type.Object({
  url: Type.String({ minLength: 1 }),
  protocol: Type.Union([Type.Literal('TCP'), Type.Literal('SSL'), Type.Literal('WSS')], { default: 'TCP' }),
  /** Opt-out of TLS certificate verification (reference field). Verification is on by default. */
  disable_cert_verification: Type.Boolean({ default: false }),
});

/**
 * spec 2.2 UtxoMergeParams, in the reference's shape: merge once the wallet holds `merge_at` UTXOs,
 * checking every `check_every` seconds, at most `max_merge_at_once` per merge. Validated and then
 * refused: merging needs signed transactions, which this service never makes (docs/compatibility.md §9).
 */
export const UtxoMergeParams = Type.Object({
  merge_at: Type.Integer({ minimum: 0 }),
  /** Seconds. @default 10 (as the reference; filled in by the method, since `null` is allowed around it) */
  check_every: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** @default 100 (as the reference) */
  max_merge_at_once: Type.Optional(Type.Integer({ minimum: 0 })),
});
/**
 * A request's `address_format` for a UTXO coin (legacy `electrum` and `enable`, as the reference reads
 * it): replaces the coins entry's format for this activation (docs/compatibility.md §6).
 */
export const AddressFormatRequest = Type.Object({ format: Type.String(), network: Type.Optional(Type.String()) });

/** The reference's defaults of {@link UtxoMergeParams}. */
export const UTXO_MERGE_DEFAULTS = { check_every: 10, max_merge_at_once: 100 } as const;
export type UtxoMergeParams = Static<typeof UtxoMergeParams>;

/**
 * Legacy `electrum` request (spec 4.6, flat body without `userpass`/`method`). `servers` is
 * optional here so the legacy checks (already active, `mm2`, `protocol`) answer first, as in the
 * reference; a missing list is reported after them.
 */
export const LegacyElectrumParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  servers: Type.Optional(Type.Array(ElectrumServerParams)),
  min_connected: Type.Optional(Type.Integer({ minimum: 0 })),
  max_connected: Type.Optional(Type.Integer({ minimum: 0 })),
  mm2: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
  required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  requires_notarization: Type.Optional(Type.Boolean()),
  ...SwapContractFields,
  address_format: Type.Optional(AddressFormatRequest),
  utxo_merge_params: Type.Optional(Nullable(UtxoMergeParams)),
  tx_history: Type.Boolean({ default: REQUEST_DEFAULTS.tx_history }),
  /** HD mode only: the address to enable. */
  path_to_address: Type.Optional(AddressPath),
});
export type LegacyElectrumParams = Static<typeof LegacyElectrumParams>;
export const legacyElectrumParams = compile(LegacyElectrumParams);

/** Legacy `electrum` / `enable` success (spec 4.6, docs/compatibility.md §9), keys in the reference's order. */
export const LegacyActivationResponse = Type.Object({
  result: Type.Literal('success'),
  address: Type.String(),
  balance: Type.String(),
  unspendable_balance: Type.String(),
  coin: Type.String(),
  required_confirmations: Type.Integer(),
  requires_notarization: Type.Boolean(),
  mature_confirmations: Type.Optional(Type.Integer()),
  locked_by_swaps: Type.Optional(Type.String()),
});
export type LegacyActivationResponse = Static<typeof LegacyActivationResponse>;
export const legacyActivationResponse = compile(LegacyActivationResponse);
