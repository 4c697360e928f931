import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { REQUEST_DEFAULTS } from './requestDefaults.ts';
import { AddressPath, Nullable, SwapContractFields } from './enableEthWithTokens.ts';
import { AddressFormatRequest, UtxoMergeParams } from './legacyElectrum.ts';

/** Legacy `enable` request (spec 4.7, flat body without `userpass`/`method`). */
export const LegacyEnableParams = Type.Object({
  coin: Type.String({ minLength: 1 }),
  urls: Type.Optional(Type.Array(Type.String())),
  ...SwapContractFields,
  gas_station_url: Type.Optional(Type.String()),
  // No default here: given without gas_station_url only its default (8) is accepted (requestDefaults.ts).
  gas_station_decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 36 })),
  gas_station_policy: Type.Optional(
    Type.Object({ policy: Type.Union([Type.Literal('MeanAverageFast'), Type.Literal('Average')], { default: 'MeanAverageFast' }) }),
  ),
  mm2: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
  // No defaults here: an absent value falls back to the coins file, then to the spec's default.
  required_confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  requires_notarization: Type.Optional(Type.Boolean()),
  tx_history: Type.Boolean({ default: REQUEST_DEFAULTS.tx_history }),
  /** Native UTXO daemons (as the reference reads it): validated, then refused (docs/compatibility.md §9). */
  utxo_merge_params: Type.Optional(Nullable(UtxoMergeParams)),
  /** UTXO coins only: replaces the coins entry's address format (an EVM coin refuses it). */
  address_format: Type.Optional(AddressFormatRequest),
  /** HD mode only: the address to enable. */
  path_to_address: Type.Optional(AddressPath),
});
export type LegacyEnableParams = Static<typeof LegacyEnableParams>;
export const legacyEnableParams = compile(LegacyEnableParams);
