/**
 * Grøstl-512 (the final-round SHA-3 candidate, "Grøstl – a SHA-3 candidate", version 2.0.1),
 * as Groestlcoin uses it for its Base58Check checksum (docs/compatibility.md §6). Written from the
 * specification because no dependency of ours has it; checked against published known answers
 * in groestl.test.ts. Not constant-time: it only ever hashes public data (about 0.5 ms for the
 * double hash of an address).
 *
 * The 1024-bit state is an 8 × 16 byte matrix, filled column by column (`state[row * 16 + col]`).
 */
const ROWS = 8;
const COLS = 16;
const BLOCK = ROWS * COLS; // 128 bytes
const ROUNDS = 14;
/** ShiftBytesWide: how far each row moves to the left, in P1024 and in Q1024. */
const SHIFT_P = [0, 1, 2, 3, 4, 5, 6, 11] as const;
const SHIFT_Q = [1, 3, 5, 11, 0, 2, 4, 6] as const;
/** First row of the circulant MixBytes matrix B = circ(02, 02, 03, 04, 05, 03, 05, 07). */
const MIX = [2, 2, 3, 4, 5, 3, 5, 7] as const;

/** Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (the AES field). */
const xtime = (a: number): number => ((a << 1) ^ (a & 0x80 ? 0x1b : 0)) & 0xff;

function gmul(a: number, b: number): number {
  let product = 0;
  for (let x = a, y = b; y > 0; x = xtime(x), y >>= 1) if (y & 1) product ^= x;
  return product;
}

/** The AES S-box: the field inverse followed by the AES affine map. */
function aesSbox(): Uint8Array {
  const box = new Uint8Array(256);
  const rotl = (v: number, n: number) => ((v << n) | (v >> (8 - n))) & 0xff;
  for (let x = 0; x < 256; x++) {
    let inverse = 0;
    if (x !== 0) for (inverse = 1; gmul(x, inverse) !== 1; inverse++);
    box[x] = inverse ^ rotl(inverse, 1) ^ rotl(inverse, 2) ^ rotl(inverse, 3) ^ rotl(inverse, 4) ^ 0x63;
  }
  return box;
}

interface Tables {
  readonly sbox: Uint8Array;
  /** `mix[row][k]`: multiplication by B[row][k], so MixBytes is lookups and XORs. */
  readonly mix: readonly (readonly Uint8Array[])[];
}
let built: Tables | undefined;

/** Built on first use, so a service without Groestlcoin never pays for them. */
function tables(): Tables {
  built ??= {
    sbox: aesSbox(),
    mix: Array.from({ length: ROWS }, (_, row) =>
      Array.from({ length: ROWS }, (_, k) => Uint8Array.from({ length: 256 }, (_, x) => gmul(MIX[(k - row + ROWS) % ROWS]!, x))),
    ),
  };
  return built;
}

/** P1024 (`q` false) or Q1024 (`q` true) applied to `state` in place. */
function permute(state: Uint8Array, q: boolean): void {
  const shift = q ? SHIFT_Q : SHIFT_P;
  const { sbox, mix } = tables();
  const moved = new Uint8Array(BLOCK);
  for (let round = 0; round < ROUNDS; round++) {
    // AddRoundConstant
    for (let col = 0; col < COLS; col++) {
      if (q) {
        for (let row = 0; row < ROWS - 1; row++) state[row * COLS + col]! ^= 0xff;
        state[(ROWS - 1) * COLS + col]! ^= (col << 4) ^ 0xff ^ round;
      } else {
        state[col]! ^= (col << 4) ^ round;
      }
    }
    // SubBytes, ShiftBytesWide
    for (let row = 0; row < ROWS; row++) {
      for (let col = 0; col < COLS; col++) moved[row * COLS + col] = sbox[state[row * COLS + ((col + shift[row]!) % COLS)]!]!;
    }
    // MixBytes: every column times B
    for (let col = 0; col < COLS; col++) {
      for (let row = 0; row < ROWS; row++) {
        const byK = mix[row]!;
        let sum = 0;
        for (let k = 0; k < ROWS; k++) sum ^= byK[k]![moved[k * COLS + col]!]!;
        state[row * COLS + col] = sum;
      }
    }
  }
}

/** Message bytes (column-major) ↔ state matrix (row-major). */
function toState(bytes: Uint8Array, offset: number): Uint8Array {
  const state = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) state[(i % ROWS) * COLS + Math.floor(i / ROWS)] = bytes[offset + i]!;
  return state;
}

/** Grøstl-512 of `data`: 64 bytes. */
export function groestl512(data: Uint8Array): Uint8Array {
  // Padding: 0x80, zeros, then the number of 128-byte blocks as a 64-bit big-endian integer.
  const blocks = Math.floor((data.length + 1 + 8 + BLOCK - 1) / BLOCK);
  const padded = new Uint8Array(blocks * BLOCK);
  padded.set(data);
  padded[data.length] = 0x80;
  new DataView(padded.buffer).setBigUint64(padded.length - 8, BigInt(blocks));

  const iv = new Uint8Array(BLOCK);
  iv[BLOCK - 2] = 0x02; // the output length, 512, as a 64-bit big-endian integer
  let h = toState(iv, 0);
  for (let offset = 0; offset < padded.length; offset += BLOCK) {
    const m = toState(padded, offset);
    const p = h.map((byte, i) => byte ^ m[i]!);
    permute(p, false);
    permute(m, true);
    h = h.map((byte, i) => byte ^ p[i]! ^ m[i]!);
  }
  // Output transformation: the last 512 bits of P(h) ⊕ h.
  const out = Uint8Array.from(h);
  permute(out, false);
  const digest = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    const at = (i % ROWS) * COLS + Math.floor((BLOCK - 64 + i) / ROWS);
    digest[i] = out[at]! ^ h[at]!;
  }
  return digest;
}
