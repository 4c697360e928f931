/**
 * BIP39 mnemonic → seed for HD wallets (docs/compatibility.md §6: English words, empty BIP39 password).
 * Internal to `infra/keys`. A bad mnemonic is reported by kind and word count only: no error
 * message ever contains a word of it.
 */
import { LangEn, Mnemonic } from 'ethers';

/** Why a mnemonic was refused. */
export const MnemonicProblem = { WordCount: 'WordCount', UnknownWord: 'UnknownWord', Checksum: 'Checksum' } as const;
export type MnemonicProblem = (typeof MnemonicProblem)[keyof typeof MnemonicProblem];

/** BIP39 sentence lengths (128..256 bits of entropy in steps of 32). */
const WORD_COUNTS: readonly number[] = [12, 15, 18, 21, 24];

/** Thrown for a passphrase that is not a BIP39 English mnemonic. The message quotes no word. */
export class InvalidMnemonicError extends Error {
  readonly problem: MnemonicProblem;
  readonly wordCount: number;

  constructor(problem: MnemonicProblem, wordCount: number, position?: number) {
    super(`passphrase: not a valid BIP39 English mnemonic: ${explain(problem, wordCount, position)}`);
    this.name = 'InvalidMnemonicError';
    this.problem = problem;
    this.wordCount = wordCount;
  }
}

function explain(problem: MnemonicProblem, wordCount: number, position: number | undefined): string {
  const words = `${wordCount} word${wordCount === 1 ? '' : 's'}`;
  switch (problem) {
    case MnemonicProblem.WordCount:
      return `it has ${words}; a mnemonic has 12, 15, 18, 21 or 24`;
    case MnemonicProblem.UnknownWord:
      return `word ${position ?? '?'} of ${wordCount} is not in the BIP39 English word list (lowercase words only)`;
    case MnemonicProblem.Checksum:
      return `the checksum of the ${words} does not match (a word is wrong or out of order)`;
  }
}

/** The words of `text` with whitespace normalised (trimmed, single spaces). */
export function normaliseMnemonic(text: string): string {
  return text.trim().split(/\s+/).filter((w) => w !== '').join(' ');
}

/**
 * The 64-byte BIP39 seed (hex, `0x`-prefixed) of a mnemonic, with an empty BIP39 password.
 * Throws {@link InvalidMnemonicError} for a wrong word count, an unknown word or a bad checksum.
 */
export function mnemonicSeed(text: string): string {
  const phrase = normaliseMnemonic(text);
  const words = phrase === '' ? [] : phrase.split(' ');
  if (!WORD_COUNTS.includes(words.length)) throw new InvalidMnemonicError(MnemonicProblem.WordCount, words.length);
  const wordlist = LangEn.wordlist();
  const unknown = words.findIndex((word) => wordlist.getWordIndex(word) < 0);
  if (unknown >= 0) throw new InvalidMnemonicError(MnemonicProblem.UnknownWord, words.length, unknown + 1);
  if (!Mnemonic.isValidMnemonic(phrase, wordlist)) throw new InvalidMnemonicError(MnemonicProblem.Checksum, words.length);
  return Mnemonic.fromPhrase(phrase, '', wordlist).computeSeed();
}
