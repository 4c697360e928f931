import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { accountBalanceResult } from '../../spec/accountBalance.ts';
import type { Stack } from '../../devnet/testing/stack.ts';
import type { Litecoind } from '../../devnet/litecoind/litecoind.ts';
import type { ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { startHdLtcWorld, type HdLtcWorld } from '../../devnet/testkits/hdLtcWorld.ts';
import { eventually } from '../../devnet/testing/tasks.ts';

/** `account_balance` of an HD LTC over Electrum (litecoind regtest): the account's listed addresses read again in one batch. */

let world: HdLtcWorld;
let node: Litecoind;
let electrum: ElectrumServer;
let s: Stack;
const hashOf = (addressId: number) => world.hashOf(addressId);
const ltcAddress = (addressId: number) => world.ltcAddress(addressId);
const finished = (taskId: number) => world.finished(taskId);

before(async () => {
  world = await startHdLtcWorld({ 0: 100_000_000n, 2: 300_000_000n });
  ({ node, electrum, s } = world);
});
after(() => world?.stop());


describe('account_balance (UTXO HD wallet over Electrum, regtest)', () => {
  test('Given an HD LTC, When a payment reaches a listed address after activation, Then account_balance reads every listed address again with exact balances', async () => {
    const init = await s.v2('task::enable_utxo::init', {
      ticker: 'LTC',
      activation_params: {
        priv_key_policy: 'ContextPrivKey',
        scan_policy: 'scan',
        gap_limit: 2,
        mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: electrum.tcp!, protocol: 'TCP' }] } },
      },
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    assert.equal((await finished(init.body.result.task_id)).status, 'Ok');
    await node.fund(p2pkhAddress(await hashOf(1)), 50_000_000n, 1);
    // Every listed address is watched (issue 26): account_balance answers from the watcher once
    // it has read the payment (before that its value is at most one poll interval old).
    const paid = await ltcAddress(1);
    await eventually(() => s.service.registry.watchedBalance('LTC', 'LTC', paid)?.balance.spendable === 50_000_000n, 'the watcher to read the payment', 10_000);

    const { status, body } = await s.v2('account_balance', { coin: 'LTC', account_index: 0 });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(accountBalanceResult.check(body.result), JSON.stringify(accountBalanceResult.firstProblem(body.result)));
    const bal = (spendable: string) => ({ LTC: { spendable, unspendable: '0' } });
    assert.deepEqual(body.result.addresses, [
      { address: await ltcAddress(0), derivation_path: "m/44'/2'/0'/0/0", chain: 'External', balance: bal('1') },
      { address: await ltcAddress(1), derivation_path: "m/44'/2'/0'/0/1", chain: 'External', balance: bal('0.5') },
      { address: await ltcAddress(2), derivation_path: "m/44'/2'/0'/0/2", chain: 'External', balance: bal('3') },
    ]);
    assert.deepEqual(body.result.page_balance, bal('4.5'));
    assert.deepEqual([body.result.account_index, body.result.derivation_path, body.result.total], [0, "m/44'/2'/0'", 3]);
  });
});
