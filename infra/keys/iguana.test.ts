import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printedForms } from '../../devnet/testing/printedForms.ts';
import { SigningKey } from 'ethers';
import { isActivationError } from '../../spec/errors.ts';
import { evmAddress, p2pkhAddress, tronAddress } from './addresses.ts';
import { decodeBase58Check, encodeBase58Check } from './base58check.ts';
import { createIguanaKeyProvider } from './iguana.ts';
import { iguanaPrivateKey, InvalidPrivateKeyError, parseWif } from './iguanaSeed.ts';

const BOB_KEY = '0xb8c774f071de08c7fd8f62b97f1a5726f6ce9f1bcf141b70b86689254ed6714e';
const ETH = { coin: 'ETH' };
const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;

/** Public key of `privateKey` computed by ethers directly, for comparison. */
function expectedPublic(privateKey: string) {
  const key = new SigningKey(privateKey);
  return { compressedHex: key.compressedPublicKey.slice(2), uncompressedHex: key.publicKey.slice(2) };
}

async function publicOf(passphrase: string) {
  const pk = await createIguanaKeyProvider(passphrase).publicKey(ETH);
  return { compressedHex: pk.compressedHex, uncompressedHex: pk.uncompressedHex };
}

/** WIF of a 32-byte key with a given version byte, compressed or not. */
function wif(key: string, version: number, compressed: boolean): string {
  const body = Buffer.from(key.slice(2), 'hex');
  return encodeBase58Check(new Uint8Array([version, ...body, ...(compressed ? [1] : [])]));
}

describe('Iguana key from a seed phrase (sha256, clamped)', () => {
  it('matches the check vector for "bob passphrase"', async () => {
    const { key, source } = iguanaPrivateKey('bob passphrase');
    assert.equal(hex(key), BOB_KEY);
    assert.equal(source, 'Sha256');
    assert.deepEqual(await publicOf('bob passphrase'), expectedPublic(BOB_KEY));
  });

  it('gives the documented ETH, KMD and TRON addresses', async () => {
    const provider = createIguanaKeyProvider('bob passphrase');
    assert.equal(provider.derivationMethod, 'Iguana');
    const pk = await provider.publicKey(ETH);
    assert.equal(evmAddress(pk), '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d');
    assert.equal(p2pkhAddress(pk, 60), 'RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD');
    const tron = tronAddress(pk);
    assert.match(tron, /^T/);
    assert.equal(hex(decodeBase58Check(tron) ?? new Uint8Array()), `0x41${evmAddress(pk).slice(2).toLowerCase()}`);
  });

  it('returns the 04-prefixed uncompressed key and a 33-byte compressed key, fresh each call', async () => {
    const provider = createIguanaKeyProvider('bob passphrase');
    const a = await provider.publicKey(ETH);
    assert.match(a.uncompressedHex, /^04[0-9a-f]{128}$/);
    assert.equal(a.compressed.length, 33);
    a.compressed.fill(0);
    assert.notEqual((await provider.publicKey({ coin: 'KMD' })).compressed[0], 0);
  });

  it('clamps every sha256 key', () => {
    for (const phrase of ['a', 'seed words', 'ünïcødé 😀', '0x1234', '0x' + 'g'.repeat(64)]) {
      const { key, source } = iguanaPrivateKey(phrase);
      assert.equal(source, 'Sha256', phrase);
      assert.equal((key[0] as number) & 7, 0);
      assert.equal((key[31] as number) & 0xc0, 0x40);
    }
  });
});

describe('Iguana key from a WIF or 0x-hex passphrase', () => {
  const KEY = '0x0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d';

  it('reads the standard compressed Bitcoin WIF', async () => {
    const text = 'KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617';
    assert.equal(hex(parseWif(text) ?? new Uint8Array()), KEY);
    assert.equal(createIguanaKeyProvider(text).keySource, 'Wif');
    assert.deepEqual(await publicOf(text), expectedPublic(KEY));
  });

  it('refuses an uncompressed WIF, as the reference does, without quoting it', () => {
    const text = '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ';
    assert.throws(() => createIguanaKeyProvider(text), (e: unknown) => {
      assert.ok(e instanceof InvalidPrivateKeyError);
      assert.match(e.message, /uncompressed WIF/);
      assert.ok(!e.message.includes(text));
      return true;
    });
  });

  it('accepts any version byte (KMD 188, even 0)', async () => {
    for (const version of [188, 0, 239]) {
      const text = wif(KEY, version, true);
      assert.equal(iguanaPrivateKey(text).source, 'Wif', `version ${version}`);
      assert.deepEqual(await publicOf(text), expectedPublic(KEY));
    }
  });

  it('a WIF-shaped text with a bad checksum is refused, not hashed into another wallet', () => {
    const good = wif(KEY, 128, true);
    const broken = good.slice(0, -1) + (good.endsWith('1') ? '2' : '1');
    assert.throws(() => iguanaPrivateKey(broken), (e: unknown) => {
      assert.ok(e instanceof InvalidPrivateKeyError);
      assert.match(e.message, /checksum matches none/);
      assert.ok(!e.message.includes(broken));
      return true;
    });
  });

  it('a text without the WIF layout (another compression flag, another length) is hashed', () => {
    const badFlag = encodeBase58Check(new Uint8Array([128, ...Buffer.from(KEY.slice(2), 'hex'), 2]));
    assert.equal(iguanaPrivateKey(badFlag).source, 'Sha256');
    const short = encodeBase58Check(new Uint8Array([128, ...Buffer.from(KEY.slice(2), 'hex')]).slice(0, 30));
    assert.equal(iguanaPrivateKey(short).source, 'Sha256');
  });

  it('reads a 0x-prefixed 32-byte hex key, in either case', async () => {
    assert.deepEqual(await publicOf(KEY), expectedPublic(KEY));
    assert.deepEqual(await publicOf(`0x${KEY.slice(2).toUpperCase()}`), expectedPublic(KEY));
    assert.equal(createIguanaKeyProvider(BOB_KEY).keySource, 'Hex');
    assert.equal(evmAddress(await createIguanaKeyProvider(BOB_KEY).publicKey(ETH)), '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d');
  });

  it('refuses an out-of-range key without quoting it', () => {
    const zero = `0x${'0'.repeat(64)}`;
    const order = '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    for (const text of [zero, order, wif(zero, 128, true)]) {
      assert.throws(() => createIguanaKeyProvider(text), (e: unknown) => {
        assert.ok(e instanceof InvalidPrivateKeyError);
        assert.ok(!e.message.includes(text) && !e.message.includes('0000000000'));
        return true;
      });
    }
    assert.throws(() => createIguanaKeyProvider(''), /non-empty/);
  });
});

describe('Iguana provider keeps the private key inside', () => {
  it('no property, JSON, inspect or toString shows it', async () => {
    const provider = createIguanaKeyProvider({ reveal: () => 'bob passphrase' });
    const needle = BOB_KEY.slice(2);
    const outputs = [...printedForms(provider), JSON.stringify(await provider.publicKey(ETH))];
    for (const text of outputs) {
      assert.ok(!text.toLowerCase().includes(needle), text);
      assert.ok(!text.includes('bob passphrase'), text);
    }
    assert.deepEqual(JSON.parse(JSON.stringify(provider)), { derivationMethod: 'Iguana', keySource: 'Sha256' });
    assert.ok(Object.isFrozen(provider));
  });

  it('rejects an HD address path with UnexpectedDerivationMethod', async () => {
    const provider = createIguanaKeyProvider('bob passphrase');
    await assert.rejects(provider.publicKey(ETH, { accountId: 0, chain: 'External', addressId: 0 }), (e: unknown) => {
      assert.ok(isActivationError(e));
      assert.equal(e.errorType, 'UnexpectedDerivationMethod');
      return true;
    });
  });
});

describe('addresses', () => {
  it('P2PKH keeps leading zero bytes (Bitcoin pubtype 0 gives a 1… address)', async () => {
    const pk = await createIguanaKeyProvider('bob passphrase').publicKey(ETH);
    assert.match(p2pkhAddress(pk, 0), /^1/);
    assert.throws(() => p2pkhAddress(pk, 256), RangeError);
  });

  it('base58check round-trips and rejects bad text', () => {
    const payload = new Uint8Array([0, 0, 1, 2, 3]);
    assert.deepEqual(decodeBase58Check(encodeBase58Check(payload)), payload);
    assert.equal(decodeBase58Check('0OIl'), undefined);
    assert.equal(decodeBase58Check('111'), undefined);
  });
});
