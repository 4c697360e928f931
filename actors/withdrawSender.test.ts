import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSender } from './withdrawSender.ts';
import { fakeCoin } from '../devnet/testing/fixtures.ts';
import type { HdAccountListing } from '../machines/activation.types.ts';

const hd: HdAccountListing = {
  walletId: 'w',
  accountId: 0,
  accountPath: "m/44'/60'/0'",
  chain: 'External',
  knownAddresses: 2,
  addresses: [
    { address: '0xA0', derivationPath: "m/44'/60'/0'/0/0", chain: 'External', balances: {} },
    { address: '0xA1', derivationPath: "m/44'/60'/0'/0/1", chain: 'External', balances: {} },
  ],
};

test('Given an Iguana coin, When from is given, Then UnexpectedFromAddress; without it the enabled address', () => {
  const coin = fakeCoin('ETH', [], { address: '0xI' });
  assert.deepEqual(resolveSender(coin, undefined), { address: '0xI' });
  assert.throws(() => resolveSender(coin, { derivationPath: "m/44'/60'/0'/0/0" }), (e: { errorType: string }) => e.errorType === 'UnexpectedFromAddress');
});

test('Given an HD coin, When from names a listed address by path or by index, Then that address with its key path', () => {
  const coin = fakeCoin('ETH', [], { address: '0xA0', derivationPath: "m/44'/60'/0'/0/0", hd });
  const expected = { address: '0xA1', derivationPath: "m/44'/60'/0'/0/1", addressPath: { accountId: 0, chain: 'External', addressId: 1 } };
  assert.deepEqual(resolveSender(coin, { derivationPath: "m/44'/60'/0'/0/1" }), expected);
  assert.deepEqual(resolveSender(coin, { accountId: 0, chain: 'External', addressId: 1 }), expected);
  assert.deepEqual(resolveSender(coin, undefined).address, '0xA0');
});

test('Given an HD coin, When from names an unlisted address, another account or another coin path, Then the reference errors', () => {
  const coin = fakeCoin('ETH', [], { address: '0xA0', derivationPath: "m/44'/60'/0'/0/0", hd });
  assert.throws(() => resolveSender(coin, { accountId: 0, chain: 'External', addressId: 7 }), (e: { errorType: string; data: unknown }) => e.errorType === 'UnexpectedFromAddress' && e.data === "'m/44'/60'/0'/0/7' address is not activated");
  assert.throws(() => resolveSender(coin, { accountId: 1, chain: 'External', addressId: 0 }), (e: { errorType: string; data: unknown }) => e.errorType === 'UnknownAccount');
  assert.throws(() => resolveSender(coin, { derivationPath: "m/44'/0'/0'/0/0" }), (e: { errorType: string }) => e.errorType === 'UnexpectedFromAddress');
});
