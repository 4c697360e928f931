import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { standaloneActivationResult } from '../../spec/activationResult.ts';
import type { Stack } from '../../devnet/testing/stack.ts';
import type { ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { startHdLtcWorld, type HdLtcWorld } from '../../devnet/testkits/hdLtcWorld.ts';

/**
 * `task::enable_utxo` with an HD wallet (`enable_hd`): the HD fields mean what they mean in
 * `task::enable_eth` (gap-limit scan of account 0, External), over Electrum; the reference client's
 * LTC body (real coins entry, `m/44'/2'`).
 */

let world: HdLtcWorld;
let electrum: ElectrumServer;
let s: Stack;
const ltcAddress = (addressId: number) => world.ltcAddress(addressId);
const finished = (taskId: number) => world.finished(taskId);

before(async () => {
  world = await startHdLtcWorld({ 0: 100_000_000n, 3: 300_000_000n, 25: 25_000_000n });
  ({ electrum, s } = world);
});
after(() => world?.stop());

const body = (extra: Record<string, unknown> = {}) => ({
  ticker: 'LTC',
  activation_params: {
    required_confirmations: 2,
    requires_notarization: false,
    priv_key_policy: 'ContextPrivKey',
    min_addresses_number: 1,
    scan_policy: 'scan_if_new_wallet',
    gap_limit: 20,
    mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: electrum.tcp!, protocol: 'TCP', disable_cert_verification: false }], max_connected: 1 } },
    tx_history: true,
    pubtype: 48,
    p2shtype: 50,
    wiftype: 176,
    max_connected: 1,
    ...extra,
  },
});


const ltcBalance = (spendable: string) => ({ LTC: { spendable, unspendable: '0' } });

describe('task::enable_utxo with an HD wallet', () => {
  test('a new wallet is scanned up to the gap limit; the account and its addresses in the reference\'s HD shape', async () => {
    const { status, body: init } = await s.v2('task::enable_utxo::init', body());
    assert.equal(status, 200, JSON.stringify(init));
    const result = await finished(init.result.task_id);
    assert.equal(result.status, 'Ok', JSON.stringify(result));
    assert.ok(standaloneActivationResult.check(result.details), JSON.stringify(standaloneActivationResult.firstProblem(result.details)));
    const account = result.details.wallet_balance.accounts[0];
    assert.equal(result.details.wallet_balance.wallet_type, 'HD');
    assert.equal(account.account_index, 0);
    assert.equal(account.derivation_path, "m/44'/2'/0'");
    // index 25 lies beyond 20 unused addresses after index 3: not found
    assert.deepEqual(account.total_balance, ltcBalance('4'));
    const expected = await Promise.all(
      [0, 1, 2, 3].map(async (i) => ({ address: await ltcAddress(i), derivation_path: `m/44'/2'/0'/0/${i}`, chain: 'External', balance: ltcBalance(i === 0 ? '1' : i === 3 ? '3' : '0') })),
    );
    assert.deepEqual(account.addresses, expected);
    assert.deepEqual((await s.legacy('my_balance', { coin: 'LTC' })).body, { coin: 'LTC', balance: '1', unspendable_balance: '0', address: await ltcAddress(0) });
    assert.equal((await s.legacy('disable_coin', { coin: 'LTC' })).status, 200);
  });

  test('scan_policy scan with a wider gap_limit finds the address beyond; path_to_address enables another', async () => {
    const { body: init } = await s.v2('task::enable_utxo::init', body({ scan_policy: 'scan', gap_limit: 30, path_to_address: { account_id: 0, chain: 'External', address_id: 3 } }));
    const result = await finished(init.result.task_id);
    assert.equal(result.status, 'Ok', JSON.stringify(result));
    const account = result.details.wallet_balance.accounts[0];
    assert.equal(account.addresses.length, 26);
    assert.deepEqual(account.total_balance, ltcBalance('4.25'));
    assert.deepEqual(account.addresses[25].balance, ltcBalance('0.25'));
    assert.equal((await s.legacy('my_balance', { coin: 'LTC' })).body.address, await ltcAddress(3));
    assert.equal((await s.legacy('disable_coin', { coin: 'LTC' })).status, 200);
  });

  test('a native daemon cannot serve an HD scan: refused at init, by name, with no task', async () => {
    const { status, body: refused } = await s.v2('task::enable_utxo::init', body({ mode: { rpc: 'Native' }, max_connected: undefined }));
    assert.equal(status, 400);
    assert.equal(refused.error_type, 'InvalidRequest');
    assert.match(refused.error, /^activation_params\.mode: an HD wallet \(enable_hd\) scans its account for LTC/);
  });
});
