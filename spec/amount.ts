/**
 * Amounts travel as decimal strings of the exact integer value (docs/compatibility.md §7): no floating
 * point anywhere, no trailing zeros, `"0"` for zero. This is the one formatter of the service.
 */
export function formatAmount(raw: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new RangeError(`decimals must be an integer in 0..255, got ${decimals}`);
  }
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Parses a decimal string back to its integer value at `decimals` (exact; rejects excess precision). */
export function parseAmount(text: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimals`);
  const value = BigInt(`${whole}${fraction.padEnd(decimals, '0')}`);
  return sign === '-' ? -value : value;
}

/**
 * The exact value at a fixed scale: always `decimals` fraction digits (`formatFixed(0n, 6)` is
 * `"0.000000"`), for wire fields the reference writes at a fixed scale (TRON fee details).
 */
export function formatFixed(raw: bigint, decimals: number): string {
  const text = formatAmount(raw, decimals);
  if (decimals === 0) return text;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(decimals, '0')}`;
}
