import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isActivationError } from '../spec/errors.ts';
import { requireSingleAddressPath, requireSingleAddressScan, resolveAddressPath, resolveHdScan, SingleAddressKey } from './hdPlan.ts';

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
    assert.deepEqual(plan, { accountId: 0, chain: 'External', addressId: 6, gapLimit: 5, scan: false, minAddresses: 7, knownAddresses: 4, otherChainAddresses: 4 });
    // The other chain's recorded addresses are listed (issue 26); none recorded there: none listed.
    const byChain = (_: number, chain: string) => (chain === 'External' ? 4 : undefined);
    assert.equal(resolveHdScan(ETH, undefined, byChain).otherChainAddresses, undefined);
    assert.equal(resolveHdScan(ETH, { pathToAddress: { chain: 'Internal' } }, byChain).otherChainAddresses, 4);
  });

  test('a key with one address: path_to_address may only name account 0, External, 0 (docs/compatibility.md §6)', () => {
    const accepted = [undefined, {}, { accountId: 0, chain: 'External' as const, addressId: 0 }, { chain: 0 as const }, { derivationPath: "m/44'/60'/0'/0/0" }];
    for (const request of accepted) {
      requireSingleAddressPath(ETH, request, SingleAddressKey.Iguana);
      requireSingleAddressPath(ETH, request, SingleAddressKey.Hardware);
    }
    // A coin without derivation_path (most UTXO coins in Iguana mode): the parts still work.
    requireSingleAddressPath({ coin: 'KMD' }, { accountId: 0, chain: 'External', addressId: 0 }, SingleAddressKey.Iguana);

    const iguana = (e: unknown) => isActivationError(e) && e.errorType === 'UnexpectedDerivationMethod' && e.data === e.message;
    assert.throws(() => requireSingleAddressPath(ETH, { accountId: 1 }, SingleAddressKey.Iguana), (e) => iguana(e) && /asks for account 1, External, address 0 of ETH, but an Iguana key/.test((e as Error).message));
    assert.throws(() => requireSingleAddressPath(ETH, { chain: 'Internal' }, SingleAddressKey.Iguana), iguana);
    assert.throws(() => requireSingleAddressPath(ETH, { addressId: 3 }, SingleAddressKey.Iguana), iguana);
    assert.throws(() => requireSingleAddressPath(ETH, { derivationPath: "m/44'/60'/0'/0/1" }, SingleAddressKey.Iguana), iguana);
    assert.throws(() => requireSingleAddressPath({ coin: 'KMD' }, { addressId: 1 }, SingleAddressKey.Iguana), iguana);
    // A full path cannot be read for a coin without derivation_path: refused, not guessed.
    assert.throws(() => requireSingleAddressPath({ coin: 'KMD' }, { derivationPath: "m/44'/141'/0'/0/0" }, SingleAddressKey.Iguana), iguana);
    // A full path under another coin is malformed for this one.
    assert.throws(() => requireSingleAddressPath(ETH, { derivationPath: "m/44'/61'/0'/0/0" }, SingleAddressKey.Iguana), (e) => isActivationError(e) && e.errorType === 'InvalidRequest');
    assert.throws(
      () => requireSingleAddressPath(ETH, { addressId: 2 }, SingleAddressKey.Hardware),
      (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && /a hardware key is read at account 0, External, address 0 only/.test(e.message),
    );
  });

  test('a key with one address: the scan fields may only ask for what one address is (docs/compatibility.md §6)', () => {
    const accepted = [undefined, {}, { gapLimit: 20 }, { scanPolicy: 'do_not_scan' as const }, { scanPolicy: 'scan_if_new_wallet' as const }, { minAddressesNumber: 0 }, { minAddressesNumber: 1 }];
    for (const request of accepted) {
      requireSingleAddressScan(ETH, request, SingleAddressKey.Iguana);
      requireSingleAddressScan(ETH, request, SingleAddressKey.Hardware);
    }
    const refused: [object, RegExp][] = [
      [{ scanPolicy: 'scan' }, /^params\.scan_policy "scan": an Iguana key \(enable_hd false\) has one address per coin \(ETH\), with no address scan, so it would have no effect; leave it out \(or give its default, "scan_if_new_wallet"\), or set enable_hd/],
      [{ gapLimit: 5 }, /^params\.gap_limit 5: .* leave it out \(or give its default, 20\)/],
      [{ minAddressesNumber: 2 }, /^params\.min_addresses_number 2: .* leave it out, or set enable_hd/],
    ];
    for (const [request, message] of refused) {
      assert.throws(() => requireSingleAddressScan(ETH, request, SingleAddressKey.Iguana), (e) => isActivationError(e) && e.errorType === 'UnexpectedDerivationMethod' && message.test(e.message));
      assert.throws(() => requireSingleAddressScan(ETH, request, SingleAddressKey.Hardware), (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && /a hardware key/.test(e.message));
    }
  });
});
