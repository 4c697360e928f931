import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { accountBalanceResult } from '../../spec/accountBalance.ts';
import { startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';
import type { EvmDevnet } from '../../devnet/index.ts';

/** `account_balance` of an HD LTC over Electrum (litecoind regtest): the account's listed addresses read again in one batch. */

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const keys = createHdKeyProvider(MNEMONIC);
let ltc: Record<string, unknown>;
const hashOf = async (addressId: number) =>
  Buffer.from(btcCrypto.hash160(Buffer.from((await keys.publicKey(ltc as never, { accountId: 0, chain: 'External', addressId })).compressed)));
const ltcAddress = async (addressId: number) => payments.p2pkh({ hash: await hashOf(addressId), network: { pubKeyHash: 48 } as never }).address!;

let node: Litecoind;
let electrum: ElectrumServer;
let devnet: EvmDevnet;
let s: Stack;

before(async () => {
  [ltc] = (await realCoinEntries(['LTC'])) as [Record<string, unknown>];
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  await node.fund(p2pkhAddress(await hashOf(0)), 100_000_000n, 1);
  await node.fund(p2pkhAddress(await hashOf(2)), 300_000_000n, 1);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC }, extraCoins: [ltc] });
});
after(async () => {
  await s?.stop();
  await electrum?.stop();
  await node?.stop();
  await devnet?.stop();
});

async function finished(taskId: number): Promise<any> {
  for (let i = 0; i < 5_000; i++) {
    const { body: b } = await s.v2('task::enable_utxo::status', { task_id: taskId, forget_if_finished: false });
    if (b.result.status === 'Ok' || b.result.status === 'Error') return b.result;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('task did not finish');
}

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
