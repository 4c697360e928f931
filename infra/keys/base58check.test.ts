import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Base58Checksum, decodeBase58Check, decodeBase58CheckAny, encodeBase58Check } from './base58check.ts';
import { iguanaPrivateKey } from './iguanaSeed.ts';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const hex = (value: Uint8Array | undefined) => (value === undefined ? undefined : Buffer.from(value).toString('hex'));
/** The reference prints these keys with `H256::from_reversed_str`: the bytes are the hex reversed. */
const reversed = (text: string) => Buffer.from(text, 'hex').reverse().toString('hex');

/** Vectors from the reference's own tests (mm2_bitcoin keys: address.rs, private.rs). */
const ADDRESSES = [
  { checksum: Base58Checksum.DoubleSha256, payload: '3c05aab5342166f8594baf17a7d9bef5d567443327', text: 'R9o9xTocqr6CeEDGDH6mEYpwLoMz6jNjMW' },
  { checksum: Base58Checksum.DoubleGroestl512, payload: '24c3f710deb7320b0efa6edb14e3ebeeb9155fa90d', text: 'Fo2tBkpzaWQgtjFUkemsYnKyfvd2i8yTki' },
  { checksum: Base58Checksum.Keccak256, payload: '3f56bb05aa20f5a80cf84e90e5dab05be331333e27', text: 'SVCbBs6FvPYxJrYoJc4TdCe47QNCgmTabv' },
] as const;
const WIFS = [
  { checksum: Base58Checksum.DoubleGroestl512, version: 128, key: reversed('cbc8853bd3617a5fcecfcc97f4a68853481657fc575cf85e04a64a2d1a78f974'), text: 'L196QUb5fAcBVvZizvx66ABsU7iVTS4iAz15YEgB8QWY35KfD6ox' },
  { checksum: Base58Checksum.Keccak256, version: 191, key: reversed('48688b0cd9440864b95916f53d6e06cdab5f50dc3abfa74b5c6a176620daa302'), text: 'VFqZrZNzkJEk29Kzp87J7eXDuQFMh1UsqYcMmi9bfdAZ522nz1mv' },
] as const;

describe('Base58Check with the three checksums', () => {
  test('encodes and decodes the reference\'s addresses, each with its own checksum only', () => {
    for (const { checksum, payload, text } of ADDRESSES) {
      assert.equal(encodeBase58Check(bytes(payload), checksum), text, checksum);
      assert.equal(hex(decodeBase58Check(text, checksum)), payload);
      assert.deepEqual(hex(decodeBase58CheckAny(text)?.payload), payload);
      assert.equal(decodeBase58CheckAny(text)?.checksum, checksum);
      for (const other of Object.values(Base58Checksum).filter((c) => c !== checksum)) {
        assert.equal(decodeBase58Check(text, other), undefined, `${text} is not ${other}`);
      }
    }
  });

  test('double SHA-256 stays the default', () => {
    assert.equal(encodeBase58Check(bytes(ADDRESSES[0].payload)), ADDRESSES[0].text);
    assert.equal(hex(decodeBase58Check(ADDRESSES[0].text)), ADDRESSES[0].payload);
    assert.equal(decodeBase58Check(ADDRESSES[1].text), undefined);
  });

  test('Trust Wallet Core\'s GRS address and its double-SHA-256 twin are told apart by their checksum', () => {
    assert.equal(decodeBase58CheckAny('Fj62rBJi8LvbmWu2jzkaUX1NFXLEsNpjgw')?.checksum, Base58Checksum.DoubleSha256);
    assert.equal(decodeBase58CheckAny('Fj62rBJi8LvbmWu2jzkaUX1NFXLEqDLoZM')?.checksum, Base58Checksum.DoubleGroestl512);
  });

  test('an Iguana passphrase that is a Groestlcoin or SmartCash WIF is read as that key (as the reference detects the checksum)', () => {
    for (const { checksum, version, key, text } of WIFS) {
      assert.equal(encodeBase58Check(bytes(`${version.toString(16)}${key}01`), checksum), text);
      const { key: parsed, source } = iguanaPrivateKey(text);
      assert.equal(source, 'Wif', checksum);
      assert.equal(hex(parsed), key);
    }
  });

  test('text that is not Base58, or too short for a checksum, decodes to nothing', () => {
    for (const text of ['', '0OIl', 'abc', '1111']) assert.equal(decodeBase58CheckAny(text), undefined, text);
  });
});
