/**
 * CashAddr (Bitcoin Cash address format, `bitcoincash:q…`): base32 with a BCH-code checksum over
 * the network prefix. bitcoinjs-lib has no encoder for it, so this is the spec's algorithm. Any
 * prefix of ASCII letters and digits works (eCash `ecash`, Ergon `ergon`, `5trat`, …), as in the
 * reference (docs/compatibility.md §6).
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];

function polymod(values: readonly number[]): bigint {
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    GENERATORS.forEach((g, i) => {
      if ((c0 >> BigInt(i)) & 1n) c ^= g;
    });
  }
  return c ^ 1n;
}

/** 8-bit bytes → 5-bit groups, zero-padded at the end. */
function toFiveBit(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** Longest prefix accepted: the bound BIP173 sets for bech32's human-readable part (CashAddr sets none). */
export const CASH_PREFIX_MAX_LENGTH = 83;
const CASH_PREFIX = new RegExp(`^[A-Za-z0-9]{1,${CASH_PREFIX_MAX_LENGTH}}$`);

/**
 * The prefix an address is shown with, from `address_format.network`: lower-cased, as the reference
 * does (the checksum reads only each character's low 5 bits, so the case never changes it). The
 * CashAddr spec allows ASCII only and `:` separates the prefix; this service takes letters and digits.
 */
export function cashAddressPrefix(network: string): { prefix: string } | { problem: string } {
  if (!CASH_PREFIX.test(network)) {
    return { problem: `address_format network ${JSON.stringify(network.slice(0, 40))} is not a CashAddr prefix (1 to ${CASH_PREFIX_MAX_LENGTH} ASCII letters or digits)` };
  }
  return { prefix: network.toLowerCase() };
}

/** The CashAddr of a 20-byte P2PKH hash (version byte 0) under a lower-case `prefix` (see `cashAddressPrefix`). */
export function cashAddressP2pkh(prefix: string, hash160: Uint8Array): string {
  if (hash160.length !== 20) throw new RangeError('a P2PKH hash is 20 bytes');
  if (!CASH_PREFIX.test(prefix) || prefix !== prefix.toLowerCase()) throw new RangeError('a CashAddr prefix is lower-case ASCII letters and digits');
  const payload = toFiveBit(Uint8Array.from([0, ...hash160]));
  const prefixData = [...prefix].map((ch) => ch.charCodeAt(0) & 31);
  const checksum = polymod([...prefixData, 0, ...payload, 0, 0, 0, 0, 0, 0, 0, 0]);
  const checksumDigits = Array.from({ length: 8 }, (_, i) => Number((checksum >> BigInt(5 * (7 - i))) & 31n));
  return `${prefix}:${[...payload, ...checksumDigits].map((d) => CHARSET[d]).join('')}`;
}

/** A decoded CashAddr: its prefix, kind (P2PKH or P2SH) and 20-byte hash. */
export interface CashAddress {
  readonly prefix: string;
  readonly kind: 'p2pkh' | 'p2sh';
  readonly hash: Uint8Array;
}

/**
 * Decodes `prefix:payload` (or a bare payload under `defaultPrefix`), all lower or all upper case,
 * checking the checksum over the prefix. Only 160-bit hashes (the size every coin uses). `undefined`
 * when the text is not such an address.
 */
export function decodeCashAddress(text: string, defaultPrefix?: string): CashAddress | undefined {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return undefined;
  const lower = text.toLowerCase();
  const colon = lower.lastIndexOf(':');
  const prefix = colon >= 0 ? lower.slice(0, colon) : defaultPrefix;
  const body = colon >= 0 ? lower.slice(colon + 1) : lower;
  if (prefix === undefined || !CASH_PREFIX.test(prefix) || body.length !== 42) return undefined;
  const digits = [...body].map((ch) => CHARSET.indexOf(ch));
  if (digits.some((d) => d < 0)) return undefined;
  const prefixData = [...prefix].map((ch) => ch.charCodeAt(0) & 31);
  if (polymod([...prefixData, 0, ...digits]) !== 0n) return undefined;
  const bytes = fromFiveBit(digits.slice(0, -8));
  if (bytes === undefined || bytes.length !== 21) return undefined;
  const version = bytes[0]!;
  if ((version & 0x07) !== 0) return undefined; // size bits 0: a 160-bit hash
  const type = version >> 3;
  if (type !== 0 && type !== 1) return undefined;
  return { prefix, kind: type === 0 ? 'p2pkh' : 'p2sh', hash: bytes.slice(1) };
}

/** 5-bit groups → bytes; `undefined` when the padding is not zero bits (under 5 of them). */
function fromFiveBit(groups: readonly number[]): Uint8Array | undefined {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const group of groups) {
    acc = ((acc << 5) | group) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((acc << (8 - bits)) & 0xff) !== 0) return undefined;
  return Uint8Array.from(out);
}
