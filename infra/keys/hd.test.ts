import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { printedForms } from '../../devnet/testing/printedForms.ts';
import { HDNodeWallet, Mnemonic, SigningKey } from 'ethers';
import { isActivationError } from '../../spec/errors.ts';
import { evmAddress, p2pkhAddress } from './addresses.ts';
import { createHdKeyProvider } from './hd.ts';
import { createIguanaKeyProvider } from './iguana.ts';
import { isHdKeyProvider, type AddressPath } from '../../actors/ports/keyProvider.ts';

const ABANDON = `${'abandon '.repeat(11)}about`;
const ZOO24 = `${'zoo '.repeat(23)}vote`;
const ETH = { coin: 'ETH', derivation_path: "m/44'/60'" };
const BTC = { coin: 'BTC', derivation_path: "m/44'/0'" };
const at = (accountId: number, chain: AddressPath['chain'], addressId: number): AddressPath => ({ accountId, chain, addressId });

/** ethers' own derivation of `path`: the oracle. */
const oracle = (phrase: string, path: string) => HDNodeWallet.fromPhrase(phrase, undefined, path);

describe('HD key provider: BIP32/BIP44 derivation', () => {
  const hd = createHdKeyProvider(ABANDON);

  it('gives the standard ETH and BTC addresses of the "abandon … about" mnemonic', async () => {
    assert.equal(hd.derivationMethod, 'HDWallet');
    assert.equal(evmAddress(await hd.publicKey(ETH)), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    assert.equal(evmAddress(await hd.publicKey(ETH, at(0, 'External', 1))), '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0');
    assert.equal(p2pkhAddress(await hd.publicKey(BTC), 0), '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
  });

  it('the default path is account 0, External, address 0', async () => {
    assert.deepEqual(await hd.publicKey(ETH), await hd.publicKey(ETH, at(0, 'External', 0)));
  });

  it('matches ethers on both chains, several accounts and indices, and a 24-word mnemonic', async () => {
    for (const [phrase, provider] of [[ABANDON, hd], [ZOO24, createHdKeyProvider(ZOO24)]] as const) {
      for (const path of [at(0, 'Internal', 0), at(0, 'Internal', 7), at(1, 'External', 0), at(1, 'Internal', 3), at(2, 'External', 1000), at(0, 'External', 2 ** 31 - 1)]) {
        const full = provider.addressPath(ETH, path);
        const expected = oracle(phrase, full);
        const key = await provider.publicKey(ETH, path);
        assert.equal(key.compressedHex, expected.publicKey.slice(2), full);
        assert.equal(key.uncompressedHex, SigningKey.computePublicKey(expected.publicKey, false).slice(2), full);
        assert.equal(evmAddress(key), expected.address, full);
      }
    }
  });

  it('an account cached before gives the same keys in any order', async () => {
    const order = [at(3, 'External', 5), at(4, 'Internal', 5), at(3, 'Internal', 5), at(4, 'External', 5)];
    const first = await Promise.all(order.map((p) => hd.publicKey(ETH, p)));
    const fresh = createHdKeyProvider(ABANDON);
    const again = await Promise.all([...order].reverse().map((p) => fresh.publicKey(ETH, p)));
    assert.deepEqual(first, again.reverse());
  });

  it('paths: account and full address path strings', () => {
    assert.equal(hd.accountPath(ETH, 0), "m/44'/60'/0'");
    assert.equal(hd.accountPath(BTC, 7), "m/44'/0'/7'");
    assert.equal(hd.addressPath(ETH, at(1, 'Internal', 12)), "m/44'/60'/1'/1/12");
    assert.equal(hd.addressPath(ETH, at(0, 'External', 0)), "m/44'/60'/0'/0/0");
  });

  it('walletId is hash160 of the master public key: stable, and per wallet', () => {
    assert.match(hd.walletId, /^[0-9a-f]{40}$/);
    assert.ok(hd.walletId.startsWith('73c5da0a'), 'the well-known master fingerprint of this mnemonic');
    assert.equal(createHdKeyProvider(ABANDON).walletId, hd.walletId);
    assert.notEqual(createHdKeyProvider(ZOO24).walletId, hd.walletId);
  });

  it('returns fresh public key bytes on each call', async () => {
    const a = await hd.publicKey(ETH);
    a.compressed.fill(0);
    assert.notEqual((await hd.publicKey(ETH)).compressed[0], 0);
  });

  it('isHdKeyProvider tells an HD provider from an Iguana one', () => {
    assert.equal(isHdKeyProvider(hd), true);
    assert.equal(isHdKeyProvider(createIguanaKeyProvider('bob passphrase')), false);
  });
});

describe('HD key provider: bad requests', () => {
  const hd = createHdKeyProvider(ABANDON);
  const invalid = (pattern: RegExp) => (e: unknown) => {
    assert.ok(isActivationError(e), String(e));
    assert.equal(e.errorType, 'InvalidRequest');
    assert.match(e.message, pattern);
    return true;
  };

  it('a coin without derivation_path is an InvalidRequest naming the coin', async () => {
    const noPath = /coin KMD has no derivation_path: HD mode needs derivation_path .* in the coins file/;
    await assert.rejects(hd.publicKey({ coin: 'KMD' }), invalid(noPath));
    await assert.rejects(hd.publicKey({ coin: 'KMD' }, at(0, 'External', 0)), invalid(noPath));
    assert.throws(() => hd.accountPath({ coin: 'KMD' }, 0), invalid(noPath));
    assert.throws(() => hd.addressPath({ coin: 'KMD' }, at(0, 'External', 0)), invalid(noPath));
  });

  it('out-of-range indices, an unknown chain and a malformed derivation_path are refused', async () => {
    await assert.rejects(hd.publicKey(ETH, at(-1, 'External', 0)), invalid(/account_id must be an integer from 0 to 2147483647/));
    await assert.rejects(hd.publicKey(ETH, at(2 ** 31, 'External', 0)), invalid(/account_id/));
    await assert.rejects(hd.publicKey(ETH, at(0, 'External', 1.5)), invalid(/address_id/));
    await assert.rejects(hd.publicKey(ETH, at(0, 'Change' as AddressPath['chain'], 0)), invalid(/chain must be "External" or "Internal"/));
    await assert.rejects(hd.publicKey({ coin: 'X', derivation_path: "44'/60'" }), invalid(/coin X: derivation_path "44'\/60'" is not a BIP32 path/));
    await assert.rejects(hd.publicKey({ coin: 'X', derivation_path: "m/44'/4294967296'" }), invalid(/not a BIP32 path/));
  });
});

describe('HD key provider keeps the root and private keys inside', () => {
  it('no property, JSON, inspect, toString or error shows the mnemonic, seed or a private key', async () => {
    const provider = createHdKeyProvider({ reveal: () => ABANDON });
    const seed = Mnemonic.fromPhrase(ABANDON).computeSeed().slice(2);
    const root = HDNodeWallet.fromSeed(`0x${seed}`);
    const secrets = [
      seed,
      root.privateKey.slice(2),
      root.chainCode.slice(2),
      ...["m/44'/60'/0'", "m/44'/60'/0'/0", "m/44'/60'/0'/0/0"].flatMap((p) => [oracle(ABANDON, p).privateKey.slice(2), oracle(ABANDON, p).chainCode.slice(2)]),
    ];
    await provider.publicKey(ETH); // fills the account cache
    const error = await provider.publicKey({ coin: 'KMD' }).catch((e: unknown) => e);
    const outputs = [
      ...printedForms(provider),
      JSON.stringify(await provider.publicKey(ETH)),
      inspect(error, { showHidden: true, depth: Infinity }),
      JSON.stringify(error),
    ];
    for (const text of outputs) {
      assert.ok(!text.includes('abandon'), 'a mnemonic word is shown');
      for (const [i, secret] of secrets.entries()) assert.ok(!text.toLowerCase().includes(secret), `secret #${i} is shown`);
    }
    assert.deepEqual(JSON.parse(JSON.stringify(provider)), { derivationMethod: 'HDWallet', walletId: provider.walletId });
    assert.equal(String(provider), `HdKeyProvider { derivationMethod: 'HDWallet', walletId: '${provider.walletId}' }`);
    assert.ok(Object.isFrozen(provider));
  });
});
