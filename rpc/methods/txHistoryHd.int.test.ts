import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet } from 'ethers';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { walletHistory, walletPair, type WalletPair } from '../../devnet/litecoind/walletHistory.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { mnemonicSeed } from '../../infra/keys/mnemonic.ts';
import { formatAmount } from '../../spec/amount.ts';
import { startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import type { EvmDevnet } from '../../devnet/index.ts';

/**
 * `my_tx_history` of an HD wallet (`enable_hd`, `task::enable_utxo` with `tx_history: true`, the real
 * LTC entry over the devnet Electrum server): the history of every listed address of the account,
 * compared with litecoind's view of a wallet holding the same four keys, and the spec's history
 * filter (`account_id`, `address_id` with `chain`) and its refusals.
 */

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = HDNodeWallet.fromSeed(mnemonicSeed(MNEMONIC));
const nodeAt = (i: number) => root.derivePath(`m/44'/2'/0'/0/${i}`);
const hashAt = (i: number) => Buffer.from(btcCrypto.hash160(Buffer.from(nodeAt(i).publicKey.slice(2), 'hex')));
/** The address as the LTC entry shows it (pubtype 48), and as regtest litecoind takes it. */
const ltcAddress = (i: number) => payments.p2pkh({ hash: hashAt(i), network: { pubKeyHash: 48 } as never }).address!;
const regtestAddress = (i: number) => p2pkhAddress(hashAt(i));

let node: Litecoind;
let electrum: ElectrumServer;
let devnet: EvmDevnet;
let wallets: WalletPair;
let s: Stack;
const funding: Record<number, string> = {};

before(async () => {
  const [ltc] = (await realCoinEntries(['LTC'])) as [Record<string, unknown>];
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  wallets = await walletPair(node, [0, 1, 2, 3].map((i) => Buffer.from(nodeAt(i).privateKey.slice(2), 'hex')));
  funding[0] = await wallets.sendMany({ [regtestAddress(0)]: 100_000_000n });
  funding[3] = await wallets.sendMany({ [regtestAddress(3)]: 300_000_000n });
  await node.mine(1);
  // address 0 pays elsewhere, its change to address 1: a transaction of two listed addresses
  const elsewhere = await wallets.node<string>('getnewaddress', ['', 'legacy']);
  funding[1] = await wallets.spend({ [elsewhere]: 40_000_000n }, regtestAddress(1));
  await node.mine(2);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'] });
  s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC }, extraCoins: [ltc] });
});
after(async () => {
  await s?.stop();
  await electrum?.stop();
  await node?.stop();
  await devnet?.stop();
});

async function activated(): Promise<void> {
  const servers = [{ url: electrum.tcp!, protocol: 'TCP' }];
  const { body: init } = await s.v2('task::enable_utxo::init', {
    ticker: 'LTC',
    activation_params: { priv_key_policy: 'ContextPrivKey', scan_policy: 'scan', gap_limit: 5, mode: { rpc: 'Electrum', rpc_data: { servers } }, tx_history: true },
  });
  for (let i = 0; i < 5_000; i++) {
    const { body } = await s.v2('task::enable_utxo::status', { task_id: init.result.task_id, forget_if_finished: false });
    if (body.result.status === 'Ok') return;
    assert.notEqual(body.result.status, 'Error', JSON.stringify(body.result));
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the activation did not finish');
}

const history = (target: unknown) => s.v2('my_tx_history', { coin: 'LTC', limit: 50, target });

describe('my_tx_history of an HD account', () => {
  test('account_id: every listed address\'s transactions, as litecoind sees the same keys; address_id: one address; refusals by name', async () => {
    await activated();
    const want = (await walletHistory(wallets)).sort((a, b) => b.blockHeight - a.blockHeight || (a.txid < b.txid ? -1 : 1));
    assert.equal(want.length, 3);
    let result: any;
    for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 20))) {
      result = (await history({ type: 'account_id', account_id: 0 })).body.result;
      if (result?.sync_status.state === 'Finished') break;
      assert.ok(Date.now() < deadline, JSON.stringify(result));
    }
    assert.deepEqual(
      result.transactions.map((t: any) => [t.tx_hash, t.my_balance_change, t.fee_details.amount, t.confirmations]),
      want.map((w) => [w.txid, formatAmount(w.balanceChange, 8), formatAmount(w.fee, 8), w.confirmations]),
    );
    const spend = result.transactions.find((t: any) => t.tx_hash === funding[1]);
    assert.deepEqual([spend.from, spend.to.includes(ltcAddress(1))], [[ltcAddress(0)], true]);

    const third = (await history({ type: 'address_id', account_id: 0, chain: 'External', address_id: 3 })).body.result;
    assert.deepEqual([third.transactions.map((t: any) => t.tx_hash), third.total, third.target], [[funding[3]], 1, { type: 'address_id', account_id: 0, chain: 'External', address_id: 3 }]);
    const first = (await history({ type: 'address_id', account_id: 0, chain: 'External', address_id: 1 })).body.result;
    assert.deepEqual(first.transactions.map((t: any) => t.tx_hash), [funding[1]]);

    const refusals = await Promise.all([
      history(undefined),
      history({ type: 'account_id', account_id: 1 }),
      history({ type: 'address_id', account_id: 0, chain: 'External', address_id: 40 }),
    ]);
    assert.deepEqual(
      refusals.map((r) => [r.status, r.body.error_type, r.body.error]),
      [
        [400, 'InvalidTarget', 'Expected an HD account/address target, found: iguana'],
        [400, 'InvalidTarget', 'No such account_id=1'],
        [400, 'InvalidTarget', "'External:40' address is not activated"],
      ],
    );
  });

  test('a new address (get_new_address) joins the sync: a payment to it is in the account history and under its address_id', async () => {
    const created = await s.v2('get_new_address', { coin: 'LTC', account_id: 0, chain: 'External' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const index = Number((created.body.result.new_address.derivation_path as string).split('/').pop());
    assert.equal(created.body.result.new_address.address, ltcAddress(index));
    const txid = await wallets.sendMany({ [regtestAddress(index)]: 12_345_678n });
    await node.mine(1);
    let seen: any;
    for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 20))) {
      seen = (await history({ type: 'address_id', account_id: 0, chain: 'External', address_id: index })).body.result;
      if (seen?.transactions.length === 1 && seen.transactions[0].confirmations === 1 && seen.sync_status.state === 'Finished') break;
      assert.ok(Date.now() < deadline, JSON.stringify(seen));
    }
    assert.deepEqual([seen.transactions[0].tx_hash, seen.transactions[0].my_balance_change, seen.transactions[0].confirmations], [txid, '0.12345678', 1]);
    const account = (await history({ type: 'account_id', account_id: 0 })).body.result;
    assert.ok(account.transactions.some((t: any) => t.tx_hash === txid), 'in the account history');
  });
});
