import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivationPlanner } from './activationPlanner.ts';
import { deviceWalletId } from './hdPlan.ts';
import { CommandKind, type ChainFamily, type StandaloneActivationCommand } from './ports/chainFamily.ts';
import { ActivationVia, ChainFamilyId, KeyPolicy, type ActivationPlan } from '../machines/activation.types.ts';
import { isActivationError } from '../spec/errors.ts';
import type { CoinEntry } from '../spec/coins.ts';

/**
 * The planner's part in a hardware wallet's UTXO coin (docs/compatibility.md §8): the device's
 * account is scanned as a mnemonic's, so the HD fields are resolved, the device is asked for the
 * account's node, and the scan is completed with what that wallet recorded.
 */

const LTC: CoinEntry = { coin: 'LTC', protocol: { type: 'UTXO' }, derivation_path: "m/44'/2'", trezor_coin: 'Litecoin' } as CoinEntry;
const family = {
  id: ChainFamilyId.Utxo,
  serves: { standalone: ['UTXO'] },
  plan: (command: StandaloneActivationCommand): ActivationPlan => ({ ticker: command.ticker, family: ChainFamilyId.Utxo, via: command.via, tokens: [], getBalances: true, params: {} }),
} as unknown as ChainFamily;
const families = { serving: () => family, servedTypes: () => ['UTXO'] };
const NODE_KEY = `03${'ab'.repeat(32)}`;

/** Given recorded address counts by (wallet, ticker, account, chain). */
function planner(recorded: Record<string, number> = {}) {
  const known = (walletId: string, ticker: string, account: number, chain: string) => recorded[`${walletId}/${ticker}/${account}/${chain}`];
  return new ActivationPlanner({ coins: { find: (t) => (t === 'LTC' ? LTC : undefined) }, families, recordedAddresses: { known } });
}

const command = (keyPolicy: KeyPolicy, hd: StandaloneActivationCommand['hd'], rpc: 'Electrum' | 'Native' = 'Electrum'): StandaloneActivationCommand =>
  ({ kind: CommandKind.Standalone, ticker: 'LTC', via: ActivationVia.EnableUtxoTask, mode: { rpc } as never, keyPolicy, hd, repeatedCoinFields: [] }) as StandaloneActivationCommand;

describe('a hardware key\'s UTXO coin over Electrum', () => {
  test('given scan, gap_limit and path_to_address, when planned, then the HD request is resolved and the device is asked for the account node by trezor_coin', () => {
    const p = planner();
    const plan = p.plan(command(KeyPolicy.Hardware, { scanPolicy: 'scan', gapLimit: 7, minAddressesNumber: 1, pathToAddress: { accountId: 2, chain: 'Internal', addressId: 4 } }));
    assert.deepEqual(plan.deviceHd, { accountId: 2, chain: 'Internal', addressId: 4, gapLimit: 7, scanPolicy: 'scan', minAddresses: 5 });
    assert.equal(plan.hd, undefined, 'not scanned before the device names its wallet');
    assert.deepEqual(p.hardwareRead(plan), { path: "m/44'/2'/2'", account: { accountId: 2, protocol: 'bitcoin', coinName: 'Litecoin' } });
  });

  test('given the device\'s node, when the plan is completed, then scan_if_new_wallet reads the count that wallet recorded, and a new wallet is scanned', () => {
    const walletId = deviceWalletId(NODE_KEY);
    const p = planner({ [`${walletId}/LTC/0/External`]: 6 });
    const planned = p.plan(command(KeyPolicy.Hardware, { scanPolicy: 'scan_if_new_wallet' }));
    const node = { accountId: 0, derivationPath: "m/44'/2'/0'", publicKeyHex: NODE_KEY, chainCodeHex: '00'.repeat(32) };
    const known = p.withDeviceAccount({ ...planned, deviceAccount: node }).hd;
    assert.deepEqual(known, { accountId: 0, chain: 'External', addressId: 0, gapLimit: 20, minAddresses: 1, scan: false, knownAddresses: 6, walletId });
    const other = { ...node, publicKeyHex: `02${'cd'.repeat(32)}` };
    const fresh = p.withDeviceAccount({ ...planned, deviceAccount: other }).hd;
    assert.equal(fresh?.scan, true);
    assert.equal(fresh?.knownAddresses, 0);
    assert.equal(fresh?.walletId, deviceWalletId(other.publicKeyHex));
    assert.match(walletId, /^[0-9a-f]{40}$/);
  });

  test('given a path outside the coin\'s, or scan with gap_limit 0, when planned, then InvalidRequest names the field before any device call', () => {
    const p = planner();
    const refused = (hd: StandaloneActivationCommand['hd'], field: RegExp) =>
      assert.throws(() => p.plan(command(KeyPolicy.Hardware, hd)), (e) => isActivationError(e) && e.errorType === 'InvalidRequest' && field.test(e.message));
    refused({ pathToAddress: { derivationPath: "m/44'/0'/0'/0/0" } }, /path_to_address\.derivation_path/);
    refused({ scanPolicy: 'scan', gapLimit: 0 }, /gap_limit/);
  });

  test('given an EVM platform\'s device account, when the device read is asked, then it is Ethereum\'s node (no coin name)', () => {
    const deviceHd = { accountId: 3, chain: 'External' as const, addressId: 0, gapLimit: 20, scanPolicy: 'scan' as const, minAddresses: 1 };
    const evmPlan: ActivationPlan = { ticker: 'LTC', family: ChainFamilyId.Evm, via: ActivationVia.EnableEthTask, tokens: [], getBalances: true, params: {}, deviceHd };
    assert.deepEqual(planner().hardwareRead(evmPlan), { path: "m/44'/2'/3'", account: { accountId: 3, protocol: 'ethereum' } });
  });

  test('given a native daemon, when planned, then the device key stays one address (the HD fields by the one rule)', () => {
    const p = planner();
    const plan = p.plan(command(KeyPolicy.Hardware, { gapLimit: 20 }, 'Native'));
    assert.equal(plan.deviceHd, undefined);
    assert.deepEqual(p.hardwareRead(plan), { path: "m/44'/2'/0'/0/0" });
    assert.throws(() => p.plan(command(KeyPolicy.Hardware, { scanPolicy: 'scan' }, 'Native')), (e) => isActivationError(e) && /scan_policy/.test(e.message));
  });
});
