import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isActivationError } from '../spec/errors.ts';
import { resolveAddressPath, resolveHdScan } from './hdPlan.ts';

const ETH = { coin: 'ETH', derivation_path: "m/44'/60'" };

describe('HD request resolution', () => {
  test('path_to_address: parts (chain by name or number) or the full derivation path under the coin', () => {
    assert.deepEqual(resolveAddressPath(ETH, undefined), { accountId: 0, chain: 'External', addressId: 0 });
    assert.deepEqual(resolveAddressPath(ETH, { accountId: 3, chain: 'Internal', addressId: 9 }), { accountId: 3, chain: 'Internal', addressId: 9 });
    assert.deepEqual(resolveAddressPath(ETH, { chain: 1 }), { accountId: 0, chain: 'Internal', addressId: 0 });
    assert.deepEqual(resolveAddressPath(ETH, { derivationPath: "m/44'/60'/2'/1/7" }), { accountId: 2, chain: 'Internal', addressId: 7 });
    for (const bad of ["m/44'/61'/2'/1/7", "m/44'/60'/2/0/7", "m/44'/60'/2'/2/7", "m/44'/60'/2'/0"]) {
      assert.throws(() => resolveAddressPath(ETH, { derivationPath: bad }), (e) => isActivationError(e) && e.errorType === 'InvalidRequest', bad);
    }
    assert.throws(() => resolveAddressPath({ coin: 'X' }, undefined), /X has no derivation_path/);
  });

  test('scan policies: scan_if_new_wallet scans only a wallet never seen; do_not_scan never; scan always', () => {
    const never = () => undefined;
    const seen = () => 4;
    assert.equal(resolveHdScan(ETH, undefined, never).scan, true);
    assert.equal(resolveHdScan(ETH, undefined, seen).scan, false);
    assert.equal(resolveHdScan(ETH, { scanPolicy: 'scan' }, seen).scan, true);
    assert.equal(resolveHdScan(ETH, { scanPolicy: 'do_not_scan' }, never).scan, false);
    const plan = resolveHdScan(ETH, { pathToAddress: { addressId: 6 }, minAddressesNumber: 3, gapLimit: 5 }, seen);
    assert.deepEqual(plan, { accountId: 0, chain: 'External', addressId: 6, gapLimit: 5, scan: false, minAddresses: 7, knownAddresses: 4 });
  });
});
