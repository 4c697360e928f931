/**
 * The few protobuf messages of java-tron's `Tron.proto`, `balance_contract.proto` and
 * `smart_contract.proto` a TRX or TRC20 transfer needs, encoded by hand: the txID and the
 * signature cover these exact bytes. proto3 rules: a zero scalar or an empty `bytes` is not
 * written; fields go out in tag order.
 */

/** `protocol.Transaction.Contract.ContractType` values used here. */
export const TronContractType = {
  TransferContract: 1,
  TriggerSmartContract: 31,
} as const;
export type TronContractType = (typeof TronContractType)[keyof typeof TronContractType];

const TYPE_URL: Readonly<Record<TronContractType, string>> = {
  [TronContractType.TransferContract]: 'type.googleapis.com/protocol.TransferContract',
  [TronContractType.TriggerSmartContract]: 'type.googleapis.com/protocol.TriggerSmartContract',
};

/** `Transaction.raw` (tags 1, 4, 8, 11, 14, 18; `data` (10) stays empty: memos are refused). */
export interface TronRawTransaction {
  /** Bytes 6..8 of the reference block's number. */
  readonly refBlockBytes: Uint8Array;
  /** Bytes 8..16 of the reference block's id. */
  readonly refBlockHash: Uint8Array;
  /** Milliseconds since the epoch. */
  readonly expiration: bigint;
  readonly contract: { readonly type: TronContractType; readonly value: Uint8Array };
  /** Milliseconds since the epoch. */
  readonly timestamp: bigint;
  /** SUN the energy of a contract call may burn at most; 0 for a TRX transfer. */
  readonly feeLimit: bigint;
}

/** `TransferContract{owner_address, to_address, amount}`; addresses are 21 bytes (`41` ‖ 20). */
export function transferContract(owner: Uint8Array, to: Uint8Array, amountSun: bigint): Uint8Array {
  return concat(bytesField(1, owner), bytesField(2, to), varintField(3, amountSun));
}

/** `TriggerSmartContract{owner_address, contract_address, data}` (no call value, no TRC10). */
export function triggerSmartContract(owner: Uint8Array, contract: Uint8Array, data: Uint8Array): Uint8Array {
  return concat(bytesField(1, owner), bytesField(2, contract), bytesField(4, data));
}

/** The bytes of `Transaction.raw`: what the txID hashes and the key signs. */
export function encodeRawTransaction(raw: TronRawTransaction): Uint8Array {
  const any = concat(bytesField(1, new TextEncoder().encode(TYPE_URL[raw.contract.type])), bytesField(2, raw.contract.value));
  const contract = concat(varintField(1, BigInt(raw.contract.type)), bytesField(2, any));
  return concat(
    bytesField(1, raw.refBlockBytes),
    bytesField(4, raw.refBlockHash),
    varintField(8, raw.expiration),
    bytesField(11, contract),
    varintField(14, raw.timestamp),
    varintField(18, raw.feeLimit),
  );
}

/** `Transaction{raw_data, signature[]}` from the raw bytes and the 65-byte signatures. */
export function encodeTransaction(rawBytes: Uint8Array, signatures: readonly Uint8Array[]): Uint8Array {
  return concat(bytesField(1, rawBytes), ...signatures.map((signature) => bytesField(2, signature)));
}

/** A varint field; zero is omitted (proto3). int64 negatives never occur here and are refused. */
function varintField(tag: number, value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  return concat(varint(BigInt(tag << 3)), varint(value));
}

/** A length-delimited field; empty is omitted (proto3). */
function bytesField(tag: number, value: Uint8Array): Uint8Array {
  if (value.length === 0) return new Uint8Array(0);
  return concat(varint(BigInt((tag << 3) | 2)), varint(BigInt(value.length)), value);
}

function varint(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new RangeError(`varint out of range: ${value}`);
  const out: number[] = [];
  let rest = value;
  do {
    const byte = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest === 0n ? byte : byte | 0x80);
  } while (rest !== 0n);
  return Uint8Array.from(out);
}

function concat(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
