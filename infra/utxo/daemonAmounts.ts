/**
 * Exact daemon amounts: a bitcoind-style daemon's decimal coin numbers ⇄ integer smallest units
 * (1 LTC = 10^8 litoshis).
 *
 * litecoind writes amounts as JSON numbers with exactly 8 decimals (`"value":12.50006970`).
 * `JSON.parse` turns them into doubles, which cannot tell adjacent litoshis apart from 2^26 LTC
 * (~67M, below the 84M supply) upward, and summing doubles drifts much earlier. So the amount
 * fields are taken from the JSON text itself, as decimal strings, and converted with bigint.
 */

import { parseAmount } from '../../spec/amount.ts';

/** Bitcoin-derived daemons print amounts with 8 decimals (1 coin = 10^8 smallest units). */
const COIN_DECIMALS = 8;
export const LITOSHIS_PER_LTC = 100_000_000n;

/** litecoind's JSON keys whose values are amounts (ValueFromAmount), e.g. `vout[].value`, `fees.base`. */
const AMOUNT_KEYS = ['value', 'amount', 'total_amount', 'fee', 'base', 'modified', 'ancestor', 'descendant'] as const;

// A key can only match outside strings: inside a JSON string every `"` is escaped, so `"key":`
// (two bare quotes around a key litecoind emits) never starts there.
const AMOUNT_FIELD = new RegExp(`"(${AMOUNT_KEYS.join('|')})"(\\s*):(\\s*)(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)`, 'g');

/** `"1.23456789"` (or `"-0.5"`, `"50"`) → `123456789n`. Throws on more than 8 decimals or exponents. */
export function parseCoinAmount(text: string): bigint {
  return parseAmount(text, COIN_DECIMALS);
}

/** `123456789n` → `"1.23456789"`: what litecoind's RPC accepts as an exact amount argument. */
export function formatCoinAmount(litoshis: bigint): string {
  const sign = litoshis < 0n ? '-' : '';
  const abs = litoshis < 0n ? -litoshis : litoshis;
  return `${sign}${abs / LITOSHIS_PER_LTC}.${(abs % LITOSHIS_PER_LTC).toString().padStart(8, '0')}`;
}

/**
 * `JSON.parse` for litecoind replies that keeps every amount field (see AMOUNT_KEYS) as its exact
 * decimal text, e.g. `{ value: "12.50006970" }`; feed those to {@link parseCoinAmount}.
 */
export function parseRpcJsonExact(text: string): unknown {
  return JSON.parse(text.replace(AMOUNT_FIELD, '"$1"$2:$3"$4"'));
}

/** An amount field read with {@link parseRpcJsonExact}, as litoshis. */
export function amountField(value: unknown): bigint {
  if (typeof value !== 'string') throw new Error(`expected an exact amount string, got ${JSON.stringify(value)}`);
  return parseCoinAmount(value);
}
