/**
 * Withdrawing (issue 25, docs/compatibility.md §23): the wire params of `withdraw` (v2 and legacy
 * flat), `task::withdraw::init` and legacy `send_raw_transaction`, and the domain form every chain
 * family works with: the order (what to send, from where, with which fee policy), the prepared
 * (signed, never broadcast) transaction and its fee details. Wire names stay here and in rpc/.
 */
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';

const Decimal = Type.Union([Type.String({ pattern: '^\\d+(\\.\\d+)?$', maxLength: 100 }), Type.Number({ minimum: 0 })]);
const U64 = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** Wire fee types (spec 2.4 FeeInfo, the reference's `WithdrawFee`, tag `type`). */
export const WireFeeType = {
  UtxoFixed: 'UtxoFixed',
  UtxoPerKbyte: 'UtxoPerKbyte',
  UtxoPriority: 'UtxoPriority',
  EthGas: 'EthGas',
  EthGasEip1559: 'EthGasEip1559',
  Qrc20Gas: 'Qrc20Gas',
  CosmosGas: 'CosmosGas',
} as const;
export type WireFeeType = (typeof WireFeeType)[keyof typeof WireFeeType];

/**
 * `fee` of a withdrawal: one object so that a bad field is named (`params.fee.gas`); which
 * fields a type needs is checked by {@link feePolicyOf}'s caller in rpc/.
 */
export const WithdrawFeeParam = Type.Object({
  type: Type.Union(Object.values(WireFeeType).map((t) => Type.Literal(t))),
  /** UtxoFixed, UtxoPerKbyte: coin units. */
  amount: Type.Optional(Decimal),
  /** EthGas: gas limit. */
  gas: Type.Optional(U64),
  /** EthGas (gwei, decimal), Qrc20Gas (satoshi, integer), CosmosGas (double). */
  gas_price: Type.Optional(Decimal),
  /** Qrc20Gas, CosmosGas. */
  gas_limit: Type.Optional(U64),
  /** EthGasEip1559 (gwei). */
  max_fee_per_gas: Type.Optional(Decimal),
  max_priority_fee_per_gas: Type.Optional(Decimal),
  /** EthGasEip1559: `{"type":"Calc"}` estimates, `{"type":"Set","gas":N}` (the reference's form is unsettled: `gas` is accepted too). */
  gas_option: Type.Optional(Type.Object({ type: Type.Union([Type.Literal('Calc'), Type.Literal('Set')]), gas: Type.Optional(U64) })),
  /** UtxoPriority (spec 2.4; not in the reference's main: refused). */
  priority: Type.Optional(Type.String()),
});
export type WithdrawFeeParam = Static<typeof WithdrawFeeParam>;

/** spec 2.3 WithdrawFromInfo (the reference's untagged `HDAddressSelector`). */
export const WithdrawFromParam = Type.Union([
  Type.Object({ derivation_path: Type.String({ minLength: 1, maxLength: 200 }) }),
  Type.Object({
    account_id: Type.Integer({ minimum: 0, maximum: 0x7fffffff }),
    chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]),
    address_id: Type.Integer({ minimum: 0, maximum: 0x7fffffff }),
  }),
]);

/** The fields of a withdrawal, the same in v2 `params`, legacy flat bodies and `task::withdraw::init`. */
const withdrawFields = {
  coin: Type.String({ minLength: 1, maxLength: 100 }),
  to: Type.String({ minLength: 1, maxLength: 200 }),
  amount: Type.Optional(Decimal),
  max: Type.Boolean({ default: false }),
  fee: Type.Optional(WithdrawFeeParam),
  from: Type.Optional(WithdrawFromParam),
  memo: Type.Optional(Type.String({ maxLength: 1000 })),
  /** The reference honours it only for remote wallets; this service never broadcasts from `withdraw`. */
  broadcast: Type.Optional(Type.Boolean()),
  /** TRON: expiry after the reference block, seconds. @default 60 */
  expiration_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  /** Tendermint only: refused. */
  ibc_source_channel: Type.Optional(Type.Unknown()),
};

export const WithdrawParams = Type.Object(withdrawFields);
export type WithdrawParams = Static<typeof WithdrawParams>;
export const withdrawParams = compile(WithdrawParams);

/** `task::withdraw::init`: a withdrawal and `client_id` (the `/event-stream?id=` that hears the task). */
export const WithdrawTaskInitParams = Type.Object({ ...withdrawFields, client_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }) });
export const withdrawTaskInitParams = compile(WithdrawTaskInitParams);

/** Legacy `send_raw_transaction` (flat): `coin` and the signed `tx_hex` (optional `0x`). */
export const SendRawTransactionParams = Type.Object({
  coin: Type.String({ minLength: 1, maxLength: 100 }),
  /** At most 128 KiB of transaction (geth's and the reference's nodes' limit), in hex. */
  tx_hex: Type.String({ minLength: 2, maxLength: 2 + 2 * 131_072, pattern: '^(0x)?([0-9a-fA-F]{2})+$' }),
});
export const sendRawTransactionParams = compile(SendRawTransactionParams);

// ---------------------------------------------------------------------------------------------
// Domain form

/** Which sender of an HD wallet (spec 2.3 WithdrawFromInfo), in domain names. */
export type WithdrawFrom =
  | { readonly derivationPath: string }
  | { readonly accountId: number; readonly chain: 'External' | 'Internal'; readonly addressId: number };

/**
 * The fee policy of an order, amounts in base units where the unit is fixed by the policy (EVM
 * prices in wei), or in the coin's smallest unit (UTXO rates), resolved by actors/.
 */
export type FeePolicy =
  /** No `fee`: the family estimates. */
  | { readonly kind: 'Auto' }
  /** UTXO: `amount` per kB (the reference's v3 treats `UtxoFixed` as a per-kB rate too). */
  | { readonly kind: 'UtxoFixed'; readonly amount: bigint }
  | { readonly kind: 'UtxoPerKbyte'; readonly amount: bigint }
  | { readonly kind: 'EthGas'; readonly gasPriceWei: bigint; readonly gas: bigint }
  /** `gas` undefined: estimated (`Calc`). */
  | { readonly kind: 'EthGasEip1559'; readonly maxFeePerGasWei: bigint; readonly maxPriorityFeePerGasWei: bigint; readonly gas: bigint | undefined }
  | { readonly kind: 'Qrc20Gas'; readonly gasLimit: bigint; readonly gasPrice: bigint }
  | { readonly kind: 'CosmosGas' };
export type FeePolicyKind = FeePolicy['kind'];

/** The sender, resolved by actors/: the address and, for HD and hardware keys, its key's path. */
export interface WithdrawSender {
  readonly address: string;
  /** Full BIP32 path (HD and hardware keys); absent for an Iguana key. */
  readonly derivationPath?: string;
  /** The path below the coin's `derivation_path` (HD keys), for the key provider. */
  readonly addressPath?: { readonly accountId: number; readonly chain: 'External' | 'Internal'; readonly addressId: number };
}

/** A withdrawal as the families take it: never wire names. */
export interface WithdrawOrder {
  readonly coin: string;
  readonly to: string;
  /** In the coin's smallest unit, or everything spendable. */
  readonly amount: bigint | 'max';
  readonly fee: FeePolicy;
  readonly sender: WithdrawSender;
  readonly memo?: string;
  /** TRON expiry. @default 60 */
  readonly expirationSeconds?: number;
}

/** Fee details per family (spec 2.4 WithdrawFee), integers in the fee coin's smallest unit. */
export type FeeDetails =
  | { readonly type: 'Utxo'; readonly coin: string; readonly decimals: number; readonly amount: bigint }
  | {
      readonly type: 'Eth';
      /** The platform ticker (tokens pay gas in it). */
      readonly coin: string;
      readonly decimals: number;
      readonly gas: bigint;
      /** Wei per gas; for EIP-1559 the max fee per gas. */
      readonly gasPriceWei: bigint;
      readonly maxFeePerGasWei?: bigint;
      readonly maxPriorityFeePerGasWei?: bigint;
      readonly totalFee: bigint;
    }
  | {
      readonly type: 'Qrc20';
      readonly coin: string;
      readonly decimals: number;
      readonly minerFee: bigint;
      readonly gasLimit: bigint;
      /** Satoshi per gas. */
      readonly gasPrice: bigint;
      readonly totalGasFee: bigint;
    }
  | {
      readonly type: 'Tron';
      readonly coin: string;
      readonly bandwidthUsed: number;
      readonly energyUsed: number;
      /** SUN (TRX has 6 decimals). */
      readonly bandwidthFee: bigint;
      readonly energyFee: bigint;
      readonly accountCreationFee?: bigint;
      readonly totalFee: bigint;
    };

/** A built and signed transaction, not broadcast (issue 25: withdraw never broadcasts). */
export interface PreparedWithdrawal {
  /** Hex without `0x`. */
  readonly txHex: string;
  readonly txHash: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** In the withdrawn coin's smallest unit (its own decimals). */
  readonly totalAmount: bigint;
  readonly spentByMe: bigint;
  readonly receivedByMe: bigint;
  readonly myBalanceChange: bigint;
  readonly feeDetails: FeeDetails;
  /** Seconds. */
  readonly timestamp: number;
  /** EVM: the nonce the transaction uses. */
  readonly nonce?: bigint;
}
