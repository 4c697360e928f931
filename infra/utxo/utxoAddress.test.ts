import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { payments } from 'bitcoinjs-lib';
import { createIguanaKeyProvider } from '../keys/index.ts';
import { cashAddressP2pkh } from './cashAddress.ts';
import { electrumScripthash, utxoAddressRule, utxoWallet, type UtxoAddressRule } from './utxoAddress.ts';

const G = Buffer.from('0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798', 'hex');

function rule(entry: Parameters<typeof utxoAddressRule>[0]): UtxoAddressRule {
  const result = utxoAddressRule(entry);
  if ('problem' in result) throw new Error(result.problem);
  return result.rule;
}

describe('UTXO wallet addresses', () => {
  test('KMD check vector: "bob passphrase" gives RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD', async () => {
    const pk = await createIguanaKeyProvider('bob passphrase').publicKey({ coin: 'KMD' });
    assert.equal(utxoWallet(pk.compressed, rule({ coin: 'KMD', pubtype: 60 })).address, 'RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD');
    // without pubtype the reference's default is 60, except for BTC (0)
    assert.equal(utxoWallet(pk.compressed, rule({ coin: 'KMD' })).address, 'RRnMcSeKiLrNdbp91qNVQwwXx5azD4S4CD');
    assert.match(utxoWallet(pk.compressed, rule({ coin: 'BTC' })).address, /^1/);
  });

  test('BTC-style P2PKH, Zcash-style taddr prefix, bech32 segwit', () => {
    assert.equal(utxoWallet(G, rule({ coin: 'BTC', pubtype: 0 })).address, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    assert.match(utxoWallet(G, rule({ coin: 'ZEC', pubtype: 184, taddr: 28 })).address, /^t1/);
    const segwit = rule({ coin: 'BTC-segwit', bech32_hrp: 'bc', address_format: { format: 'segwit' } });
    assert.equal(utxoWallet(G, segwit).address, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    assert.deepEqual(utxoWallet(G, segwit).scripts.map((s) => Buffer.from(s).toString('hex')), ['0014751e76e8199196d454941c45d1b3a323f1433bd6']);
  });

  test('non-segwit wallets are paid by P2PKH and P2PK scripts', () => {
    const { scripts } = utxoWallet(G, rule({ coin: 'BTC', pubtype: 0 }));
    assert.deepEqual(scripts.map((s) => Buffer.from(s).toString('hex')), [
      '76a914751e76e8199196d454941c45d1b3a323f1433bd688ac',
      `21${G.toString('hex').toLowerCase()}ac`,
    ]);
  });

  test('CashAddr matches the specification vectors', () => {
    const hash = Buffer.from('F5BF48B397DAE70BE82B3CCA4793F8EB2B6CDAC9', 'hex');
    assert.equal(cashAddressP2pkh('bitcoincash', hash), 'bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2');
    const bch = rule({ coin: 'BCH', address_format: { format: 'cashaddress', network: 'bitcoincash' } });
    assert.match(utxoWallet(G, bch).address, /^bitcoincash:q/);
  });

  test('entries that cannot give an address say why', () => {
    assert.deepEqual(utxoAddressRule({ coin: 'X', address_format: { format: 'segwit' } }), { problem: 'address_format segwit needs bech32_hrp in the coins file' });
    assert.match((utxoAddressRule({ coin: 'X', address_format: { format: 'cashaddress' } }) as { problem: string }).problem, /network bitcoincash/);
    assert.match((utxoAddressRule({ coin: 'X', address_format: { format: 'mixedcase' } }) as { problem: string }).problem, /not one of/);
  });

  test('Electrum script hash of the genesis coinbase address (protocol docs vector)', () => {
    const script = payments.p2pkh({ address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }).output!;
    assert.equal(electrumScripthash(script), '8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
  });
});
