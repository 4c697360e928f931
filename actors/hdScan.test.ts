import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scanHdAccount, type AddressRead, type HdScanPlan } from './hdScan.ts';

/** A chain where the given address indices are used (one by tx count, others by balance/token). */
function chainWith(used: Record<number, Partial<AddressRead>>) {
  const calls: number[][] = [];
  const read = async (indices: readonly number[]) => {
    calls.push([...indices]);
    return {
      currentBlock: 7,
      decimals: [6],
      addresses: indices.map((i) => ({ txCount: 0n, native: 0n, tokens: [0n], ...used[i] })),
    };
  };
  return { read, calls };
}

const plan = (over: Partial<HdScanPlan> = {}): HdScanPlan => ({ accountId: 0, chain: 'External', addressId: 0, gapLimit: 20, scan: true, minAddresses: 1, knownAddresses: 0, ...over });

describe('scanHdAccount', () => {
  test('a fresh wallet with nothing used: one round trip of gap_limit addresses, one address listed', async () => {
    const { read, calls } = chainWith({});
    const result = await scanHdAccount(plan(), read);
    assert.equal(result.roundTrips, 1);
    assert.deepEqual(calls[0], Array.from({ length: 20 }, (_, i) => i));
    assert.equal(result.knownAddresses, 0);
    assert.equal(result.addresses.length, 1);
    assert.equal(result.currentBlock, 7);
  });

  test('used addresses across windows: a used one beyond an unused gap shorter than the limit is found', async () => {
    const { read, calls } = chainWith({ 0: { txCount: 3n }, 4: { native: 1n }, 9: { tokens: [5n] } });
    const result = await scanHdAccount(plan({ gapLimit: 5 }), read);
    assert.equal(result.knownAddresses, 10);
    assert.equal(result.addresses.length, 10);
    assert.deepEqual(calls, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]);
    assert.equal(result.addresses[9]!.tokens[0], 5n, 'a token-only address counts as used');
  });

  test('a used address beyond the gap limit is not found (the gap limit is the contract)', async () => {
    const { read } = chainWith({ 25: { native: 1n } });
    const result = await scanHdAccount(plan(), read);
    assert.equal(result.knownAddresses, 0);
  });

  test('do not scan: only the known and required addresses are read, in one round trip', async () => {
    const { read, calls } = chainWith({ 30: { native: 1n } });
    const result = await scanHdAccount(plan({ scan: false, knownAddresses: 3, minAddresses: 5 }), read);
    assert.deepEqual(calls, [[0, 1, 2, 3, 4]]);
    assert.equal(result.addresses.length, 5);
    assert.equal(result.knownAddresses, 3);
  });

  test('scanning continues from the known addresses; min_addresses_number lists more', async () => {
    const { read, calls } = chainWith({ 12: { txCount: 1n } });
    const result = await scanHdAccount(plan({ knownAddresses: 10, gapLimit: 4, minAddresses: 15 }), read);
    assert.deepEqual(calls[0], Array.from({ length: 15 }, (_, i) => i));
    assert.equal(result.knownAddresses, 13);
    assert.equal(result.addresses.length, 15);
  });
});
