import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCoin } from '../devnet/testing/fixtures.ts';
import { readNewAddress, scanNewAddresses } from './hdAddresses.ts';
import { isActivationError } from '../spec/errors.ts';
import { ChainFamilyId, type ActivatedCoin, type HdAddressRead, type HdAddressSource } from '../machines/activation.types.ts';

/** The gap-limit rule of `get_new_address` and the scan of `scan_for_new_addresses` over a fake chain (issue 26). */

type Chain = 'External' | 'Internal';
const PATH = "m/44'/2'/0'";

/** A chain where the addresses in `used` (`External/3`, …) have a transaction; every read is recorded. */
function chainWith(used: readonly string[]) {
  const reads: string[][] = [];
  const source: HdAddressSource = {
    async read(chain, indices) {
      reads.push(indices.map((i) => `${chain[0]}${i}`));
      const addresses = indices.map((i): HdAddressRead => ({
        address: `${chain}-${i}`,
        derivationPath: `${PATH}/${chain === 'External' ? 0 : 1}/${i}`,
        chain,
        addressIndex: i,
        txCount: used.includes(`${chain}/${i}`) ? 1n : 0n,
        balances: { LTC: { spendable: 0n, unspendable: 0n } },
      }));
      return { currentBlock: 1, addresses };
    },
  };
  return { source, reads };
}

/** An HD LTC listing `external` External and `internal` Internal addresses, activated with `gapLimit`. */
function hdCoin(source: HdAddressSource, external: number, internal = 0, gapLimit = 3): ActivatedCoin {
  const listed = (chain: Chain, n: number) => Array.from({ length: n }, (_, i) => ({ address: `${chain}-${i}`, derivationPath: `${PATH}/${chain === 'External' ? 0 : 1}/${i}`, chain, balances: {} }));
  return fakeCoin('LTC', [], {
    family: ChainFamilyId.Utxo,
    hd: { walletId: 'w', accountId: 0, accountPath: PATH, chain: 'External', knownAddresses: external, addresses: [...listed('External', external), ...listed('Internal', internal)], gapLimit, source },
  });
}

const signal = new AbortController().signal;
const refusedWith = (type: string, data: unknown) => (e: unknown) => isActivationError(e) && e.errorType === type && JSON.stringify(e.data) === JSON.stringify(data);

describe('get_new_address: the gap-limit rule', () => {
  test('Given fewer listed addresses than the gap limit, When a new one is asked, Then it is the next id, read alone (no check)', async () => {
    const c = chainWith([]);
    const created = await readNewAddress(hdCoin(c.source, 2), { accountIndex: 0, chain: 'External' }, signal);
    assert.equal(created.addressIndex, 2);
    assert.deepEqual(c.reads, [['E2']]);
  });

  test('Given gap-limit listed addresses, When one of the last gap_limit was used, Then the next is handed out after one read of them and it', async () => {
    const c = chainWith(['External/2']);
    const created = await readNewAddress(hdCoin(c.source, 5), { accountIndex: 0, chain: 'External' }, signal);
    assert.equal(created.addressIndex, 5);
    assert.deepEqual(c.reads, [['E2', 'E3', 'E4', 'E5']]);
  });

  test('When the last gap_limit were all unused, Then EmptyAddressesLimitReached with the gap limit (the request\'s own when given)', async () => {
    const c = chainWith(['External/1']);
    await assert.rejects(readNewAddress(hdCoin(c.source, 5), { accountIndex: 0, chain: 'External' }, signal), refusedWith('EmptyAddressesLimitReached', { gap_limit: 3 }));
    const wider = await readNewAddress(hdCoin(c.source, 5), { accountIndex: 0, chain: 'External', gapLimit: 4 }, signal);
    assert.equal(wider.addressIndex, 5);
    // gap_limit 0: the last address alone decides, as the reference's walk back.
    await assert.rejects(readNewAddress(hdCoin(c.source, 5), { accountIndex: 0, chain: 'External', gapLimit: 0 }, signal), refusedWith('EmptyAddressesLimitReached', { gap_limit: 0 }));
    assert.equal((await readNewAddress(hdCoin(c.source, 2), { accountIndex: 0, chain: 'External', gapLimit: 0 }, signal)).addressIndex, 2);
  });

  test('Each chain counts its own addresses; another account is UnknownAccount; no HD account is CoinIsActivatedNotWithHDWallet', async () => {
    const c = chainWith([]);
    assert.equal((await readNewAddress(hdCoin(c.source, 5, 1), { accountIndex: 0, chain: 'Internal' }, signal)).addressIndex, 1);
    await assert.rejects(readNewAddress(hdCoin(c.source, 1), { accountIndex: 2, chain: 'External' }, signal), refusedWith('UnknownAccount', { account_id: 2 }));
    await assert.rejects(readNewAddress(fakeCoin('LTC'), { accountIndex: 0, chain: 'External' }, signal), (e) => isActivationError(e) && e.errorType === 'CoinIsActivatedNotWithHDWallet');
  });
});

describe('scan_for_new_addresses', () => {
  test('Given used addresses beyond the listing on both chains, When scanned, Then windows go on until gap_limit unused follow the last used, and what lies up to it is found', async () => {
    // External 7 lies beyond the gap (3) after 3, the last used: not found.
    const c = chainWith(['External/3', 'External/7', 'Internal/2']);
    const scans = await scanNewAddresses(hdCoin(c.source, 1), { accountIndex: 0 }, signal);
    assert.deepEqual(c.reads, [['E1', 'E2', 'E3'], ['E4', 'E5', 'E6'], ['I0', 'I1', 'I2'], ['I3', 'I4', 'I5']]);
    assert.deepEqual(scans.map((s) => [s.chain, s.knownAddresses, s.found.map((a) => a.addressIndex)]), [
      ['External', 4, [1, 2, 3]],
      ['Internal', 3, [0, 1, 2]],
    ]);
  });

  test('An account-model coin scans External only; another account is CoinIsActivatedNotWithHDWallet (the reference\'s quirk)', async () => {
    const c = chainWith([]);
    const evm = { ...hdCoin(c.source, 0, 0, 2), family: ChainFamilyId.Evm };
    const scans = await scanNewAddresses(evm, { accountIndex: 0 }, signal);
    assert.deepEqual(scans, [{ chain: 'External', knownAddresses: 0, found: [] }]);
    assert.deepEqual(c.reads, [['E0', 'E1']]);
    await assert.rejects(scanNewAddresses(evm, { accountIndex: 1 }, signal), (e) => isActivationError(e) && e.errorType === 'CoinIsActivatedNotWithHDWallet');
  });
});
