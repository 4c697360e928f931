import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { payments } from 'bitcoinjs-lib';
import { decodeCashAddress } from '../cashAddress.ts';
import { coinTxParams, type CoinTxParams } from './coinTxParams.ts';
import { destinationScript } from './destination.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
function params(entry: object, rule: object = { format: 'standard', pubtype: 0, taddr: 0, checksum: 'DoubleSha256' }): CoinTxParams {
  const found = coinTxParams({ coin: 'X', ...entry } as never, rule as never, 8);
  assert.ok('params' in found);
  return found.params;
}

describe('decodeCashAddress', () => {
  test('the CashAddr spec vector decodes to its hash (and refuses a flipped character or mixed case)', () => {
    const decoded = decodeCashAddress('bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a');
    assert.deepEqual(decoded && { ...decoded, hash: hex(decoded.hash) }, { prefix: 'bitcoincash', kind: 'p2pkh', hash: '76a04053bda0a88bda5177b86a15c3b29f559873' });
    assert.equal(decodeCashAddress('qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', 'bitcoincash')?.kind, 'p2pkh');
    assert.equal(decodeCashAddress('bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6b'), undefined);
    assert.equal(decodeCashAddress('bitcoincash:Qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'), undefined);
    assert.equal(decodeCashAddress('bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq')?.kind, 'p2sh');
  });
});

describe('destinationScript', () => {
  const btc = params({ pubtype: 0, p2shtype: 5, bech32_hrp: 'bc', segwit: true });
  test('Base58 P2PKH and P2SH of the coin, and bech32 v0 of its hrp, become their scripts', () => {
    assert.equal(hex((destinationScript('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', btc) as { script: Uint8Array }).script), '76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac');
    assert.equal((destinationScript('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', btc) as { kind: string }).kind, 'p2sh');
    const wpkh = destinationScript('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', btc) as { script: Uint8Array; kind: string };
    assert.equal(wpkh.kind, 'p2wpkh');
    assert.equal(hex(wpkh.script), '0014751e76e8199196d454941c45d1b3a323f1433bd6');
  });
  test('addresses of other networks are refused with a reason', () => {
    const ltc = params({ pubtype: 48, p2shtype: 50, bech32_hrp: 'ltc', segwit: true });
    for (const other of ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', '']) {
      assert.ok('problem' in destinationScript(other, ltc), other);
    }
    assert.ok('problem' in destinationScript('bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', btc)); // taproot: v1
  });
  test('a CashAddr coin takes its own prefix, with or without it written, and legacy Base58 too', () => {
    const bch = params({ pubtype: 0, p2shtype: 5, fork_id: '0x40', address_format: { format: 'cashaddress', network: 'bitcoincash' } }, { format: 'cashaddress', network: 'bitcoincash' });
    const expected = hex(payments.p2pkh({ hash: Buffer.from('76a04053bda0a88bda5177b86a15c3b29f559873', 'hex') }).output!);
    for (const to of ['bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu']) {
      assert.equal(hex((destinationScript(to, bch) as { script: Uint8Array }).script), expected, to);
    }
    assert.ok('problem' in destinationScript('bchtest:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', bch));
    assert.equal(bch.forkIdSignatures, true);
    assert.equal(bch.forkId, 0x40);
  });
});

describe('coinTxParams', () => {
  test('the reference defaults: 1000 per kB without txfee, the estimate with txfee 0, per started kB with dingo_fee', () => {
    assert.deepEqual(params({}).fee, { kind: 'perKb', rate: 1000n });
    assert.deepEqual(params({ txfee: 0, estimate_fee_blocks: 3 }).fee, { kind: 'estimate', blocks: 3 });
    assert.deepEqual(params({ txfee: 100000, dingo_fee: true }).fee, { kind: 'perStartedKb', rate: 100000n });
    assert.equal(params({}).dust, 1000n);
    assert.equal(params({ dust: 5460 }).dust, 5460n);
    assert.deepEqual(params({ taddr: 28, pubtype: 184 }).p2pkhPrefix, [28, 184]);
  });
});
