import { test } from 'node:test';
import assert from 'node:assert/strict';
import { payments } from 'bitcoinjs-lib';
import { scriptAddresser } from './scriptAddress.ts';
import { utxoAddressRule } from '../utxoAddress.ts';
import type { CoinEntry } from '../../../spec/coins.ts';

const LTC = { coin: 'LTC', pubtype: 48, p2shtype: 50, segwit: true, bech32_hrp: 'ltc', protocol: { type: 'UTXO' } } as unknown as CoinEntry;
const network = { messagePrefix: '', bech32: 'ltc', bip32: { public: 0, private: 0 }, pubKeyHash: 48, scriptHash: 50, wif: 176 };
const hash = Buffer.alloc(20, 7);
const pubkey = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex');

test('Given LTC\'s entry, When an output script is shown, Then each standard form in its own address kind, whatever the wallet\'s format; others have none', () => {
  for (const entry of [LTC, { ...LTC, address_format: { format: 'segwit' } } as CoinEntry]) {
    const rule = utxoAddressRule(entry);
    assert.ok('rule' in rule, JSON.stringify(rule));
    const addressOf = scriptAddresser(entry, rule.rule);
    assert.equal(addressOf(payments.p2pkh({ hash, network }).output!), payments.p2pkh({ hash, network }).address);
    assert.equal(addressOf(payments.p2sh({ hash, network }).output!), payments.p2sh({ hash, network }).address);
    assert.equal(addressOf(payments.p2wpkh({ hash, network }).output!), payments.p2wpkh({ hash, network }).address);
    assert.equal(addressOf(payments.p2pk({ pubkey, network }).output!), payments.p2pkh({ pubkey, network }).address);
    assert.equal(addressOf(payments.embed({ data: [Buffer.from('hi')] }).output!), undefined);
  }
});
