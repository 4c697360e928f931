import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { payments } from 'bitcoinjs-lib';
import { REAL_COINS_FILE } from '../../devnet/data/index.ts';
import type { CoinEntry } from '../../spec/coins.ts';
import { createIguanaKeyProvider } from '../keys/index.ts';
import { cashAddressP2pkh } from './cashAddress.ts';
import { electrumScripthash, utxoAddressOfHash, utxoAddressRule, utxoWallet, type AddressFormatRequest, type UtxoAddressRule } from './utxoAddress.ts';

/**
 * Every expected address here comes from outside this code base: the reference's own tests, the
 * BIP173 / CashAddr specifications, the test suites of Trust Wallet Core, Bitcoin ABC, the
 * Ergon and BCH2 projects, or a real 5TRAT payout. None is computed by the code under test.
 */
const G = Buffer.from('0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798', 'hex');
const REAL = JSON.parse(readFileSync(REAL_COINS_FILE, 'utf8')) as CoinEntry[];
const UTXO_ENTRIES = REAL.filter((e) => e.protocol?.type === 'UTXO' || e.protocol?.type === 'QTUM');

function real(ticker: string): CoinEntry {
  const entry = REAL.find((e) => e.coin === ticker);
  if (entry === undefined) throw new Error(`${ticker} is not in the real coins file`);
  return entry;
}

function rule(entry: CoinEntry, requested?: AddressFormatRequest): UtxoAddressRule {
  const result = utxoAddressRule(entry, requested);
  if ('problem' in result) throw new Error(result.problem);
  return result.rule;
}

function problem(entry: CoinEntry, requested?: AddressFormatRequest): string {
  const result = utxoAddressRule(entry, requested);
  assert.ok('problem' in result, `expected a problem, got ${JSON.stringify(result)}`);
  return result.problem;
}

/** The compressed public key of a raw private key, through the Iguana provider (`0x` passphrase). */
async function keyOf(privateKeyHex: string): Promise<Uint8Array> {
  return (await createIguanaKeyProvider(`0x${privateKeyHex}`).publicKey({ coin: 'X' })).compressed;
}

const addressOf = (hash: string, entry: CoinEntry) => utxoAddressOfHash(Buffer.from(hash, 'hex'), rule(entry));

describe('UTXO addresses: standard P2PKH (double SHA-256 checksum)', () => {
  test('KMD check vector: "bob passphrase" gives RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD', async () => {
    const pk = await createIguanaKeyProvider('bob passphrase').publicKey({ coin: 'KMD' });
    assert.equal(utxoWallet(pk.compressed, rule(real('KMD'))).address, 'RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD');
    // without pubtype the reference's default is 60, except for BTC (0)
    assert.equal(utxoWallet(pk.compressed, rule({ coin: 'KMD' })).address, 'RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD');
    assert.match(utxoWallet(pk.compressed, rule({ coin: 'BTC' })).address, /^1/);
  });

  test('the reference\'s KMD and BTC vectors, and the generator point\'s BTC address', () => {
    assert.equal(addressOf('05aab5342166f8594baf17a7d9bef5d567443327', real('KMD')), 'R9o9xTocqr6CeEDGDH6mEYpwLoMz6jNjMW');
    assert.equal(addressOf('3f4aa1fedf1f54eeb03b759deadb36676b184911', real('BTC')), '16meyfSoQV6twkAAxPe51RtMVz7PGRmWna');
    assert.equal(utxoWallet(G, rule(real('BTC'))).address, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
  });

  test('Zcash-style taddr: the real ZEC entry gives Trust Wallet Core\'s t1 address; the reference\'s testnet vector', async () => {
    assert.equal(utxoWallet(await keyOf('987919d988ef94e678bce254c932e7a7a76744b2c008467448406d4246513132'), rule(real('ZEC'))).address, 't1RygJmrLdNGgi98gUgEJDTVaELTAYWoMBy');
    assert.equal(addressOf('05aab5342166f8594baf17a7d9bef5d567443327', { coin: 'ZECTEST', pubtype: 37, taddr: 29 }), 'tmAEKD7psc1ajK76QMGEW8WGQSBBHf9SqCp');
  });

  test('non-segwit wallets are paid by P2PKH and P2PK scripts', () => {
    const { scripts } = utxoWallet(G, rule(real('BTC')));
    assert.deepEqual(scripts.map((s) => Buffer.from(s).toString('hex')), [
      '76a914751e76e8199196d454941c45d1b3a323f1433bd688ac',
      `21${G.toString('hex').toLowerCase()}ac`,
    ]);
  });
});

describe('UTXO addresses: the checksum chosen by ticker, as the reference does', () => {
  test('GRS (double Grøstl-512): the real entry gives Trust Wallet Core\'s address; the reference\'s vector', async () => {
    const grs = real('GRS');
    assert.equal(utxoWallet(await keyOf('3c3385ddc6fd95ba7282051aeb440bc75820b8c10db5c83c052d7586e3e98e84'), rule(grs)).address, 'Fj62rBJi8LvbmWu2jzkaUX1NFXLEqDLoZM');
    assert.equal(addressOf('c3f710deb7320b0efa6edb14e3ebeeb9155fa90d', grs), 'Fo2tBkpzaWQgtjFUkemsYnKyfvd2i8yTki');
  });

  test('SMART (Keccak-256): the reference\'s vector', () => {
    assert.equal(addressOf('56bb05aa20f5a80cf84e90e5dab05be331333e27', { coin: 'SMART', pubtype: 63 }), 'SVCbBs6FvPYxJrYoJc4TdCe47QNCgmTabv');
  });

  test('only the exact tickers GRS and SMART change the checksum', () => {
    // The same hash and prefix under another ticker: the double-SHA-256 form (Trust Wallet Core names it as the wrong GRS form).
    const hash = '98af0aaca388a7e1024f505c033626d908e3b54a';
    assert.equal(addressOf(hash, { ...real('GRS'), coin: 'GRS-OTHER' }), 'Fj62rBJi8LvbmWu2jzkaUX1NFXLEsNpjgw');
    assert.equal(addressOf(hash, real('GRS')), 'Fj62rBJi8LvbmWu2jzkaUX1NFXLEqDLoZM');
  });
});

describe('UTXO addresses: segwit', () => {
  test('bech32 P2WPKH with the entry\'s bech32_hrp (BIP173 vector; Trust Wallet Core\'s GRS vector)', async () => {
    const btc = rule(real('BTC-segwit'));
    assert.equal(utxoWallet(G, btc).address, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    assert.deepEqual(utxoWallet(G, btc).scripts.map((s) => Buffer.from(s).toString('hex')), ['0014751e76e8199196d454941c45d1b3a323f1433bd6']);
    const grs = { ...real('GRS'), coin: 'GRS-segwit', address_format: { format: 'segwit' } };
    assert.equal(utxoWallet(await keyOf('8c59c0a6f433a961109d4fd485c4562f87e0f1ad0ece32e1db406a84c5028391'), rule(grs)).address, 'grs1qsjpmsmm4x34wlt6kk4zef9u0jtculguktwgwg4');
  });

  test('as in the reference, segwit needs "segwit": true and bech32_hrp', () => {
    assert.equal(problem({ coin: 'X', address_format: { format: 'segwit' } }), 'address_format segwit needs bech32_hrp in the coins file');
    assert.equal(problem({ coin: 'X', bech32_hrp: 'bc', address_format: { format: 'segwit' } }), 'address_format segwit needs "segwit": true in the coins file');
  });
});

describe('UTXO addresses: CashAddr with any prefix', () => {
  const cash: readonly [ticker: string, hash: string, address: string, source: string][] = [
    ['BCH', 'F5BF48B397DAE70BE82B3CCA4793F8EB2B6CDAC9', 'bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2', 'CashAddr specification'],
    ['BCH', 'a225d3a26b82e097119dd7a8621ba5fa7bfa02b8', 'bitcoincash:qz3zt5azdwpwp9c3nht6scsm5ha8h7szhqqn8da35w', 'a 5TRAT pool\'s regression test'],
    ['tBCH', '243f1394f44554f4ce3fd68649c19adc483ce924', 'bchtest:qqjr7yu573z4faxw8ltgvjwpntwys08fysk07zmvce', 'the reference\'s cashaddress tests'],
    ['XEC', '76a04053bda0a88bda5177b86a15c3b29f559873', 'ecash:qpm2qsznhks23z7629mms6s4cwef74vcwva87rkuu2', 'Bitcoin ABC\'s URI tests'],
    ['XEC', 'a225d3a26b82e097119dd7a8621ba5fa7bfa02b8', 'ecash:qz3zt5azdwpwp9c3nht6scsm5ha8h7szhqe7nxxtje', 'a 5TRAT pool\'s regression test'],
    ['XRG', '7ad1e6c11691269dcf1272ddac04fb5e354aa0df', 'ergon:qpadrekpz6gjd8w0zfedmtqyld0r2j4qmunpeyresh', 'the Ergon address library\'s README'],
    ['BCH2', '0102030405060708090a0b0c0d0e0f1011121314', 'bitcoincashii:qqqsyqcyq5rqwzqfpg9scrgwpugpzysnzse6qye33q', 'the BCH2 project\'s pool tests'],
    ['FIVETRAT', 'a225d3a26b82e097119dd7a8621ba5fa7bfa02b8', '5trat:qz3zt5azdwpwp9c3nht6scsm5ha8h7szhqxtdmhlz5', '5TRAT block 19243\'s payout'],
  ];
  for (const [ticker, hash, address, source] of cash) {
    test(`${ticker}: ${address.split(':')[0]} (${source})`, () => {
      assert.equal(addressOf(hash, real(ticker)), address);
    });
  }

  test('the wallet of a key: its CashAddr and the P2PKH/P2PK scripts', () => {
    const wallet = utxoWallet(G, rule(real('XEC')));
    assert.equal(wallet.address, cashAddressP2pkh('ecash', Buffer.from('751e76e8199196d454941c45d1b3a323f1433bd6', 'hex')));
    assert.equal(wallet.scripts.length, 2);
  });

  test('a prefix in capitals is shown in lower case (as the reference does); the checksum is the same', () => {
    const mixed = rule({ coin: 'BCH', address_format: { format: 'cashaddress', network: 'BitcoinCash' } });
    assert.deepEqual(mixed, { format: 'cashaddress', network: 'bitcoincash' });
    assert.equal(addressOf('76a04053bda0a88bda5177b86a15c3b29f559873', { coin: 'XEC', address_format: { format: 'cashaddress', network: 'ECASH' } }), 'ecash:qpm2qsznhks23z7629mms6s4cwef74vcwva87rkuu2');
  });

  test('a prefix that is not 1 to 83 ASCII letters or digits is refused, naming it', () => {
    for (const network of ['', 'bitcoin cash', 'bitcoin:cash', 'bitcoïncash', 'bch-test', 'a'.repeat(84)]) {
      const text = problem({ coin: 'X', address_format: { format: 'cashaddress', network } });
      assert.match(text, /is not a CashAddr prefix \(1 to 83 ASCII letters or digits\)$/, network);
      assert.ok(text.includes(JSON.stringify(network.slice(0, 40))), text);
    }
    assert.match(problem({ coin: 'X', address_format: { format: 'cashaddress' } }), /^address_format cashaddress needs a network/);
    assert.throws(() => cashAddressP2pkh('BitcoinCash', new Uint8Array(20)), RangeError);
  });
});

describe('UTXO addresses: the request\'s address_format', () => {
  test('replaces the entry\'s among standard and cashaddress', () => {
    assert.deepEqual(rule(real('KMD'), { format: 'cashaddress', network: 'ecash' }), { format: 'cashaddress', network: 'ecash' });
    assert.equal(rule(real('BCH'), { format: 'standard' }).format, 'standard');
    assert.equal(rule(real('BTC-segwit'), { format: 'segwit' }).format, 'segwit');
  });

  test('cannot switch between segwit and the others (as in the reference)', () => {
    assert.equal(problem(real('BTC'), { format: 'segwit' }), 'address_format segwit cannot replace the coins file\'s standard: both must be segwit, or both standard/cashaddress');
    assert.equal(problem(real('LTC-segwit'), { format: 'standard' }), 'address_format standard cannot replace the coins file\'s segwit: both must be segwit, or both standard/cashaddress');
    assert.match(problem(real('BTC'), { format: 'mixedcase' }), /^address_format "mixedcase" is not one of standard, segwit, cashaddress$/);
    assert.match(problem(real('BCH'), { format: 'cashaddress', network: 'no prefix' }), /is not a CashAddr prefix/);
  });

  test('an entry with an unknown format says so', () => {
    assert.match(problem({ coin: 'X', address_format: { format: 'mixedcase' } }), /in the coins file is not one of standard, segwit, cashaddress/);
  });
});

describe('UTXO addresses: every UTXO and QTUM entry of the real coins file', () => {
  test('has an address rule; GRS alone has the Grøstl checksum; the six CashAddr entries keep their prefixes', () => {
    assert.equal(UTXO_ENTRIES.length, 174);
    const rules = UTXO_ENTRIES.map((entry) => [entry.coin, rule(entry)] as const);
    const notSha = rules.filter(([, r]) => r.format === 'standard' && r.checksum !== 'DoubleSha256').map(([coin, r]) => [coin, r.format === 'standard' && r.checksum]);
    assert.deepEqual(notSha, [['GRS', 'DoubleGroestl512']]);
    const cashPrefixes = rules.flatMap(([coin, r]) => (r.format === 'cashaddress' ? [`${coin}:${r.network}`] : []));
    assert.deepEqual(cashPrefixes.sort(), ['BCH2:bitcoincashii', 'BCH:bitcoincash', 'FIVETRAT:5trat', 'XEC:ecash', 'XRG:ergon', 'tBCH:bchtest']);
  });
});

test('Electrum script hash of the genesis coinbase address (protocol docs vector)', () => {
  const script = payments.p2pkh({ address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }).output!;
  assert.equal(electrumScripthash(script), '8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
});
