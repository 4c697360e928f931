/**
 * The `rpc_password` strength policy (docs/compatibility.md §4, same rules as the reference): at least 8
 * characters, a digit, a lowercase and an uppercase ASCII letter, a special (non-ASCII-alphanumeric)
 * character, not containing "password" in any case, no character repeated 3 times in a row.
 * Pure; descriptions never quote the password.
 */

/** The rules a password can violate. */
export const PasswordRule = {
  MinLength: 'MinLength',
  Digit: 'Digit',
  Lowercase: 'Lowercase',
  Uppercase: 'Uppercase',
  Special: 'Special',
  NoPasswordWord: 'NoPasswordWord',
  NoTripleRepeat: 'NoTripleRepeat',
} as const;
export type PasswordRule = (typeof PasswordRule)[keyof typeof PasswordRule];

/** Minimum length in characters (Unicode code points). */
export const PASSWORD_MIN_LENGTH = 8;

/** What each rule requires, phrased to follow "rpc_password: ". */
export const PASSWORD_RULE_TEXT: Readonly<Record<PasswordRule, string>> = {
  MinLength: `must be at least ${PASSWORD_MIN_LENGTH} characters`,
  Digit: 'must contain a digit',
  Lowercase: 'must contain a lowercase letter',
  Uppercase: 'must contain an uppercase letter',
  Special: 'must contain a special character',
  NoPasswordWord: 'must not contain the word "password"',
  NoTripleRepeat: 'must not repeat a character 3 times in a row',
};

function hasTripleRepeat(chars: readonly string[]): boolean {
  for (let i = 2; i < chars.length; i++) {
    if (chars[i] === chars[i - 1] && chars[i] === chars[i - 2]) return true;
  }
  return false;
}

/** Returns every rule `password` violates, in a fixed order; empty means the password is strong. */
export function passwordViolations(password: string): PasswordRule[] {
  const chars = [...password];
  const violations: PasswordRule[] = [];
  if (chars.length < PASSWORD_MIN_LENGTH) violations.push(PasswordRule.MinLength);
  if (!/[0-9]/.test(password)) violations.push(PasswordRule.Digit);
  if (!/[a-z]/.test(password)) violations.push(PasswordRule.Lowercase);
  if (!/[A-Z]/.test(password)) violations.push(PasswordRule.Uppercase);
  if (!/[^A-Za-z0-9]/.test(password)) violations.push(PasswordRule.Special);
  if (password.toLowerCase().includes('password')) violations.push(PasswordRule.NoPasswordWord);
  if (hasTripleRepeat(chars)) violations.push(PasswordRule.NoTripleRepeat);
  return violations;
}

/** True when `password` satisfies every rule. */
export function isStrongPassword(password: string): boolean {
  return passwordViolations(password).length === 0;
}

/** Joins the violated rules into one clause, e.g. `must contain a digit, must contain ...`. */
export function describePasswordViolations(violations: readonly PasswordRule[]): string {
  return violations.map((rule) => PASSWORD_RULE_TEXT[rule]).join(', ');
}
