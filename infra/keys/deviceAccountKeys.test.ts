import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HDNodeWallet, SigningKey } from 'ethers';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { derivePublicChild, publicNode } from './bip32.ts';
import { decodeBase58Check } from './base58check.ts';
import { createDeviceAccountKeys } from './deviceAccountKeys.ts';
import { isActivationError } from '../../spec/errors.ts';

/** Public key and chain code of a serialized extended key (BIP32: version 4, depth 1, fingerprint 4, child 4, chain code 32, key 33). */
function xpubParts(xpub: string): { chainCodeHex: string; publicKeyHex: string } {
  const raw = Buffer.from(decodeBase58Check(xpub)!);
  return { chainCodeHex: raw.subarray(13, 45).toString('hex'), publicKeyHex: raw.subarray(45, 78).toString('hex') };
}

const LTC = { coin: 'LTC', derivation_path: "m/44'/2'" };
const MNEMONIC = 'all all all all all all all all all all all all';

describe('BIP32 public derivation (CKDpub)', () => {
  it('gives BIP32 test vector 1: m/0H/1 from the extended public key of m/0H', () => {
    // Published in BIP32, "Test vector 1" (seed 000102030405060708090a0b0c0d0e0f).
    const parent = xpubParts('xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw');
    const child = xpubParts('xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ');
    const derived = derivePublicChild(publicNode(parent.publicKeyHex, parent.chainCodeHex), 1);
    assert.equal(derived.publicKey.compressedHex, child.publicKeyHex);
    assert.equal(Buffer.from(derived.chainCode).toString('hex'), child.chainCodeHex);
  });

  it('refuses a public key off the curve, a malformed key or chain code, and a hardened index', () => {
    assert.throws(() => publicNode(`02${'00'.repeat(32)}`, '11'.repeat(32)));
    assert.throws(() => publicNode(`04${'11'.repeat(32)}`, '11'.repeat(32)), RangeError);
    assert.throws(() => publicNode(`02${'11'.repeat(32)}`, '11'.repeat(31)), RangeError);
    const parent = xpubParts('xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw');
    assert.throws(() => derivePublicChild(publicNode(parent.publicKeyHex, parent.chainCodeHex), 2 ** 31), RangeError);
  });
});

describe('a device account\'s keys (its public node at derivation_path/account\')', () => {
  // The oracle: ethers' private derivation from the mnemonic (a device's seed), independent of bip32.ts.
  const account = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/2'/0'");
  const node = { accountId: 0, derivationPath: "m/44'/2'/0'", publicKeyHex: account.publicKey.slice(2), chainCodeHex: account.chainCode.slice(2) };
  const keys = createDeviceAccountKeys(node, 'ab'.repeat(20));

  it('derives the same keys and Litecoin P2PKH addresses as the private derivation, on both chains', async () => {
    for (const [chain, index] of [['External', 0], ['External', 1], ['External', 19], ['Internal', 0], ['Internal', 5], ['External', 2 ** 31 - 1]] as const) {
      const path = { accountId: 0, chain, addressId: index };
      const full = keys.addressPath(LTC, path);
      assert.equal(full, `m/44'/2'/0'/${chain === 'External' ? 0 : 1}/${index}`);
      const expected = HDNodeWallet.fromPhrase(MNEMONIC, undefined, full);
      const key = await keys.publicKey(LTC, path);
      assert.equal(`0x${key.compressedHex}`, expected.publicKey, full);
      assert.equal(`0x${key.uncompressedHex}`, SigningKey.computePublicKey(expected.publicKey, false));
      const address = payments.p2pkh({ hash: Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))), network: { pubKeyHash: 48 } as never }).address!;
      const oracle = payments.p2pkh({ pubkey: Buffer.from(expected.publicKey.slice(2), 'hex'), network: { pubKeyHash: 48 } as never }).address!;
      assert.equal(address, oracle);
      assert.match(address, /^L/);
    }
  });

  it('names its account and wallet; another account is refused, not derived from this one', async () => {
    assert.equal(keys.walletId, 'ab'.repeat(20));
    assert.equal(keys.derivationMethod, 'HDWallet');
    assert.equal(keys.accountPath(LTC, 0), "m/44'/2'/0'");
    await assert.rejects(keys.publicKey(LTC, { accountId: 1, chain: 'External', addressId: 0 }), (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && /account 0/.test(e.message));
    assert.throws(() => keys.accountPath(LTC, 1), (e) => isActivationError(e) && e.errorType === 'InvalidRequest');
  });

  it('the default path is address 0 of the External chain', async () => {
    assert.deepEqual(await keys.publicKey(LTC), await keys.publicKey(LTC, { accountId: 0, chain: 'External', addressId: 0 }));
  });
});
