import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { createHdKeyProvider } from './hd.ts';
import { InvalidMnemonicError, MnemonicProblem, mnemonicSeed, normaliseMnemonic } from './mnemonic.ts';

const ABANDON = `${'abandon '.repeat(11)}about`;

/** Expects `phrase` refused for `problem` with `wordCount`, its message quoting no word of it. */
function refused(phrase: string, problem: MnemonicProblem, wordCount: number, pattern: RegExp): void {
  assert.throws(() => createHdKeyProvider(phrase), (e: unknown) => {
    assert.ok(e instanceof InvalidMnemonicError, 'an InvalidMnemonicError');
    assert.equal(e.problem, problem);
    assert.equal(e.wordCount, wordCount);
    assert.match(e.message, /^passphrase: not a valid BIP39 English mnemonic: /);
    assert.match(e.message, pattern);
    assert.ok(e.message.includes(String(wordCount)), 'gives the word count');
    for (const word of phrase.split(/\s+/).filter((w) => w !== '')) {
      assert.ok(!e.message.toLowerCase().includes(word.toLowerCase()), `the message quotes word #${phrase.split(/\s+/).indexOf(word) + 1}`);
    }
    return true;
  });
}

describe('mnemonic validation', () => {
  it('a wrong word count is named with the count', () => {
    refused('correct horse battery staple', MnemonicProblem.WordCount, 4, /it has 4 words; a mnemonic has 12, 15, 18, 21 or 24/);
    refused(ABANDON.split(' ').slice(1).join(' '), MnemonicProblem.WordCount, 11, /it has 11 words/);
    refused(`${ABANDON} abandon`, MnemonicProblem.WordCount, 13, /it has 13 words/);
    refused('   ', MnemonicProblem.WordCount, 0, /it has 0 words/);
  });

  it('an unknown word is named by position, not quoted', () => {
    const words = ABANDON.split(' ');
    words[4] = 'satoshix';
    refused(words.join(' '), MnemonicProblem.UnknownWord, 12, /word 5 of 12 is not in the BIP39 English word list/);
    // BIP39 words are lowercase: the seed of another case would differ from other wallets'
    refused(ABANDON.replace('about', 'About'), MnemonicProblem.UnknownWord, 12, /word 12 of 12/);
  });

  it('a bad checksum is told apart from an unknown word', () => {
    refused('abandon '.repeat(12), MnemonicProblem.Checksum, 12, /checksum of the 12 words does not match/);
    refused('zoo '.repeat(24), MnemonicProblem.Checksum, 24, /checksum of the 24 words/);
  });

  it('whitespace is normalised before the seed is computed', () => {
    assert.equal(normaliseMnemonic(`\n ${ABANDON.replaceAll(' ', ' \t ')}  `), ABANDON);
    const messy = `  ${ABANDON.replace(/ /g, '\n\t')}\r\n`;
    assert.equal(mnemonicSeed(messy), mnemonicSeed(ABANDON));
    assert.equal(createHdKeyProvider(messy).walletId, createHdKeyProvider(ABANDON).walletId);
  });

  it('the seed is BIP39 with an empty password (ethers as the oracle)', () => {
    assert.equal(mnemonicSeed(ABANDON), Mnemonic.fromPhrase(ABANDON, '').computeSeed());
    // BIP39 reference seed of this mnemonic with an empty password
    assert.equal(
      mnemonicSeed(ABANDON),
      '0x5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    );
    assert.equal(HDNodeWallet.fromSeed(mnemonicSeed(ABANDON)).address, HDNodeWallet.fromPhrase(ABANDON, undefined, 'm').address);
  });
});
