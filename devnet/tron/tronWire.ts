/**
 * Just enough protobuf reading for the devnet TRON node's broadcasts: the signed `Transaction`'s
 * raw bytes and signatures, and the first contract's type. The contract itself is decoded by
 * tronweb's generated protobuf code, not here.
 */

/** A malformed transaction (java-tron answers `OTHER_ERROR`). */
export class MalformedTransaction extends Error {}

/** `Transaction{1: raw_data, 2: signature*}` split into its bytes (wire type 2 fields only). */
export function splitTransaction(bytes: Buffer): { raw: Buffer; signatures: Buffer[] } {
  let raw: Buffer | undefined;
  const signatures: Buffer[] = [];
  for (const { tag, value } of lengthDelimited(bytes)) {
    if (tag === 1) raw = value;
    else if (tag === 2) signatures.push(value);
  }
  if (raw === undefined) throw new MalformedTransaction('no raw_data');
  return { raw, signatures };
}

/** The first contract's `type` (raw field 11 → field 1). */
export function contractType(raw: Buffer): number {
  const contract = lengthDelimited(raw).find((f) => f.tag === 11)?.value;
  if (contract === undefined || contract[0] !== 0x08) return 0;
  return readVarint(contract, 1).value;
}

/** The length-delimited fields of a message, skipping varints (enough for these messages). */
function lengthDelimited(bytes: Buffer): { tag: number; value: Buffer }[] {
  const out: { tag: number; value: Buffer }[] = [];
  let at = 0;
  while (at < bytes.length) {
    const key = readVarint(bytes, at);
    at = key.next;
    const wire = key.value & 7;
    if (wire === 0) at = readVarint(bytes, at).next;
    else if (wire === 2) {
      const length = readVarint(bytes, at);
      out.push({ tag: key.value >>> 3, value: bytes.subarray(length.next, length.next + length.value) });
      at = length.next + length.value;
    } else throw new MalformedTransaction(`unexpected wire type ${wire}`);
  }
  return out;
}

function readVarint(bytes: Buffer, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let at = start;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new MalformedTransaction('truncated protobuf');
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: at };
  }
}

export function field(tag: number, value: Buffer): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return Buffer.from(out);
  };
  return Buffer.concat([varint((tag << 3) | 2), varint(value.length), value]);
}
