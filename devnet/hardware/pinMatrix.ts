/**
 * The double's PIN matrix. A Trezor One shows the digits 1–9 scrambled on a 3×3 grid and the host
 * sends the *positions* the user pressed, numbered like a numeric keypad (7 8 9 on top, 1 2 3 at the
 * bottom). The double's grid is fixed, so tests can compute what to send:
 *
 * ```
 *   positions      digits shown
 *   7 8 9          3 9 1
 *   4 5 6          7 2 5
 *   1 2 3          6 8 4
 * ```
 *
 * e.g. PIN `1234` is entered as positions `9573`.
 */

/** Digit shown at each keypad position (1–9). */
export const DOUBLE_PIN_MATRIX = {
  '7': '3', '8': '9', '9': '1',
  '4': '7', '5': '2', '6': '5',
  '1': '6', '2': '8', '3': '4',
} as const;

type Position = keyof typeof DOUBLE_PIN_MATRIX;

const POSITION_OF_DIGIT: Readonly<Record<string, Position>> = Object.fromEntries(
  (Object.entries(DOUBLE_PIN_MATRIX) as [Position, string][]).map(([position, digit]) => [digit, position]),
);

/** The positions to send for `pin` (digits 1–9). Throws on any other character. */
export function pinToPositions(pin: string): string {
  return [...pin]
    .map((digit) => {
      const position = POSITION_OF_DIGIT[digit];
      if (position === undefined) throw new RangeError('a PIN consists of the digits 1-9');
      return position;
    })
    .join('');
}

/** The PIN that `positions` select, or `undefined` if it is empty or has a character outside 1–9. */
export function positionsToPin(positions: string): string | undefined {
  if (positions.length === 0) return undefined;
  let pin = '';
  for (const position of positions) {
    const digit = (DOUBLE_PIN_MATRIX as Readonly<Record<string, string>>)[position];
    if (digit === undefined) return undefined;
    pin += digit;
  }
  return pin;
}
