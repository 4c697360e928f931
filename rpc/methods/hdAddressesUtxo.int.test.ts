import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../devnet/electrum/electrumServer.ts';
import { realCoinEntries } from '../../devnet/data/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { eventsOfType, eventually } from '../../devnet/testing/tasks.ts';
import type { EvmDevnet } from '../../devnet/index.ts';
import { getNewAddressResult, scanAddressesInfo } from '../../spec/hdAddresses.ts';
import { HdAddressesProjection } from '../../events/projections/hdAddresses.ts';

/**
 * HD address management of an LTC account over Electrum (regtest litecoind and the devnet Electrum
 * server, issue 26): fresh addresses and the gap-limit refusal, a transfer to a new address seen by
 * the watcher, a scan beyond the gap on both chains, and a restart that keeps the handed-out addresses.
 */

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const keys = createHdKeyProvider(MNEMONIC);
type Chain = 'External' | 'Internal';
let ltc: Record<string, unknown>;
const hashOf = async (accountId: number, chain: Chain, addressId: number) =>
  Buffer.from(btcCrypto.hash160(Buffer.from((await keys.publicKey(ltc as never, { accountId, chain, addressId })).compressed)));
/** The address the service shows (LTC mainnet form) and the regtest one litecoind pays. */
const ltcAddress = async (accountId: number, chain: Chain, addressId: number) => payments.p2pkh({ hash: await hashOf(accountId, chain, addressId), network: { pubKeyHash: 48 } as never }).address!;
const fund = async (accountId: number, chain: Chain, addressId: number, litoshis: bigint, confirmations = 1) =>
  node.fund(p2pkhAddress(await hashOf(accountId, chain, addressId)), litoshis, confirmations);
const bal = (spendable: string, unspendable = '0') => ({ LTC: { spendable, unspendable } });
const path = (account: number, chain: Chain, id: number) => `m/44'/2'/${account}'/${chain === 'External' ? 0 : 1}/${id}`;

let node: Litecoind;
let electrum: ElectrumServer;
let devnet: EvmDevnet;
let dir: string;

before(async () => {
  [ltc] = (await realCoinEntries(['LTC'])) as [Record<string, unknown>];
  [node, devnet] = await Promise.all([startLitecoind(), startTestDevnet()]);
  electrum = await startElectrumServer({ litecoind: node, transports: ['TCP'], pollMs: 50 });
  dir = await mkdtemp(join(tmpdir(), 'hd-addresses-'));
});
after(async () => {
  await electrum?.stop();
  await node?.stop();
  await devnet?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const stack = (dbdir: string) => startStack({ devnet, dbdir, config: { enable_hd: true, passphrase: MNEMONIC }, extraCoins: [ltc] });

async function finished(s: Stack, kind: string, taskId: number): Promise<any> {
  for (let i = 0; i < 5_000; i++) {
    const { body } = await s.v2(`task::${kind}::status`, { task_id: taskId, forget_if_finished: false });
    if (body.result.status === 'Ok' || body.result.status === 'Error') return body.result;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`task::${kind} ${taskId} did not finish`);
}

/** Activates LTC on account `account` with `gap_limit` 2 (scan_if_new_wallet). */
async function activate(s: Stack, account: number): Promise<any> {
  const init = await s.v2('task::enable_utxo::init', {
    ticker: 'LTC',
    activation_params: {
      priv_key_policy: 'ContextPrivKey',
      gap_limit: 2,
      path_to_address: { account_id: account, chain: 'External', address_id: 0 },
      mode: { rpc: 'Electrum', rpc_data: { servers: [{ url: electrum.tcp!, protocol: 'TCP' }] } },
    },
  });
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const result = await finished(s, 'enable_utxo', init.body.result.task_id);
  assert.equal(result.status, 'Ok', JSON.stringify(result));
  return result.details;
}

describe('HD addresses of a UTXO coin (regtest litecoind, Electrum)', () => {
  test('get_new_address: the next External address; refused once the last gap_limit are empty; a payment to it is a pushed BalanceChanged; Internal too', async () => {
    await fund(0, 'External', 0, 100_000_000n);
    const s = await stack(join(dir, 'a'));
    try {
      const activated = await activate(s, 0);
      assert.deepEqual(activated.wallet_balance.accounts[0].addresses.map((a: any) => a.derivation_path), [path(0, 'External', 0)]);

      const first = await s.v2('get_new_address', { coin: 'LTC', account_id: 0 });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.ok(getNewAddressResult.check(first.body.result), JSON.stringify(getNewAddressResult.firstProblem(first.body.result)));
      assert.deepEqual(first.body.result, {
        new_address: { address: await ltcAddress(0, 'External', 1), derivation_path: path(0, 'External', 1), chain: 'External', balance: bal('0') },
      });
      // 2 listed, gap 2: the last two are read; address 0 was used, so address 2 is handed out.
      const second = await s.v2('get_new_address', { coin: 'LTC', account_id: 0, chain: 'External' });
      assert.equal(second.body.result.new_address.derivation_path, path(0, 'External', 2));
      const refused = await s.v2('get_new_address', { coin: 'LTC', account_id: 0 });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual([refused.body.error_type, refused.body.error_data], ['EmptyAddressesLimitReached', { gap_limit: 2 }]);
      // A wider gap limit of the request itself lets it through.
      const wider = await s.v2('get_new_address', { coin: 'LTC', account_id: 0, gap_limit: 4 });
      assert.equal(wider.body.result.new_address.derivation_path, path(0, 'External', 3));

      // A payment (in the mempool) to the new address 3 reaches its watcher: one pushed BalanceChanged.
      const newAddress = await ltcAddress(0, 'External', 3);
      await eventually(() => s.service.registry.watchedBalance('LTC', 'LTC', newAddress) !== undefined, 'the new address to be watched');
      await fund(0, 'External', 3, 25_000_000n, 0);
      await eventually(() => s.service.registry.watchedBalance('LTC', 'LTC', newAddress)?.balance.spendable === 25_000_000n, 'the watcher to read the payment', 10_000);
      const changed = (await eventsOfType(s, 'BalanceChanged', 1)).map((e) => e.type === 'BalanceChanged' && [e.data.address, e.data.old.spendable, e.data.new.spendable]);
      assert.deepEqual(changed, [[newAddress, '0', '0.25']]);
      // Now used: the rule lets the default gap through again.
      const after = await s.v2('get_new_address', { coin: 'LTC', account_id: 0 });
      assert.equal(after.body.result.new_address.derivation_path, path(0, 'External', 4));

      // The Internal chain, through the task: Preparing, then Ok with the new address.
      const init = await s.v2('task::get_new_address::init', { coin: 'LTC', account_id: 0, chain: 'Internal' });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const task = await finished(s, 'get_new_address', init.body.result.task_id);
      assert.deepEqual(task, {
        status: 'Ok',
        details: { new_address: { address: await ltcAddress(0, 'Internal', 0), derivation_path: path(0, 'Internal', 0), chain: 'Internal', balance: bal('0') } },
      });
      const internal = await s.v2('account_balance', { coin: 'LTC', account_index: 0, chain: 'Internal' });
      assert.deepEqual(internal.body.result.addresses.map((a: any) => a.derivation_path), [path(0, 'Internal', 0)]);
      const whole = await s.v2('task::account_balance::init', { coin: 'LTC', account_index: 0 });
      const account = await finished(s, 'account_balance', whole.body.result.task_id);
      assert.deepEqual(
        account.details.addresses.map((a: any) => a.derivation_path),
        [0, 1, 2, 3, 4].map((i) => path(0, 'External', i)).concat(path(0, 'Internal', 0)),
      );
      assert.deepEqual(account.details.total_balance, bal('1.25'));

      // Every handed-out address is an event, with its account, chain, index and path.
      const created = (await eventsOfType(s, 'AddressCreated')).map((e) => e.type === 'AddressCreated' && `${e.data.ticker} ${e.data.accountIndex} ${e.data.chain} ${e.data.addressIndex} ${e.data.derivationPath}`);
      assert.deepEqual(created, [
        ...[1, 2, 3, 4].map((i) => `LTC 0 External ${i} ${path(0, 'External', i)}`),
        `LTC 0 Internal 0 ${path(0, 'Internal', 0)}`,
      ]);

      // Errors of the reference: another account, an unknown coin, a bad chain.
      const other = await s.v2('get_new_address', { coin: 'LTC', account_id: 5 });
      assert.deepEqual([other.status, other.body.error_type, other.body.error_data], [400, 'UnknownAccount', { account_id: 5 }]);
      const none = await s.v2('get_new_address', { coin: 'NOPE', account_id: 0 });
      assert.deepEqual([none.status, none.body.error_type, none.body.error_data], [400, 'NoSuchCoin', { coin: 'NOPE' }]);
      const badChain = await s.v2('get_new_address', { coin: 'LTC', account_id: 0, chain: 'Change' });
      assert.equal(badChain.body.error_type, 'InvalidRequest');
    } finally {
      await s.stop();
    }
  });

  test('An activation of a new wallet scans the Internal chain too (change addresses), lists and records it', async () => {
    // Account 2: External 0 and Internal 1 (within the gap of 2 from the start of their chains).
    await fund(2, 'External', 0, 10_000_000n);
    await fund(2, 'Internal', 1, 20_000_000n);
    const s = await stack(join(dir, 'c'));
    try {
      const activated = await activate(s, 2);
      const account = activated.wallet_balance.accounts[0];
      assert.deepEqual(
        account.addresses.map((a: any) => [a.derivation_path, a.balance.LTC.spendable]),
        [[path(2, 'External', 0), '0.1'], [path(2, 'Internal', 0), '0'], [path(2, 'Internal', 1), '0.2']],
      );
      assert.deepEqual(account.total_balance, bal('0.3'));
      const [coinActivated] = await eventsOfType(s, 'CoinActivated');
      assert.ok(coinActivated?.type === 'CoinActivated');
      assert.deepEqual([coinActivated.data.hd?.chain, coinActivated.data.hd?.knownAddresses, coinActivated.data.hd?.otherChain], ['External', 1, { chain: 'Internal', knownAddresses: 2 }]);
      // Both chains were scanned, each window a read of its own.
      const windows = (await eventsOfType(s, 'HdWindowScanned')).map((e) => e.type === 'HdWindowScanned' && `${e.data.chain} ${e.data.fromIndex}+${e.data.checked} used ${e.data.used}`);
      assert.deepEqual(windows.sort(), ['External 0+2 used 1', 'External 2+1 used 0', 'Internal 0+2 used 1', 'Internal 2+2 used 0']);
      // The Internal chain's next address follows the scanned ones.
      const next = await s.v2('get_new_address', { coin: 'LTC', account_id: 2, chain: 'Internal' });
      assert.equal(next.body.result.new_address.derivation_path, path(2, 'Internal', 2));
    } finally {
      await s.stop();
    }
  });

  test('task::scan_for_new_addresses finds payments beyond the gap on both chains; a restart keeps every address (the log replays to the same counts)', async () => {
    // Account 1: External 5 and Internal 3, both beyond the activation's gap of 2.
    await fund(1, 'External', 5, 70_000_000n);
    await fund(1, 'Internal', 3, 30_000_000n);
    const dbdir = join(dir, 'b');
    let s = await stack(dbdir);
    try {
      const activated = await activate(s, 1);
      assert.deepEqual(activated.wallet_balance.accounts[0].total_balance, bal('0'), 'the activation scan stops at the gap');

      const init = await s.v2('task::scan_for_new_addresses::init', { coin: 'LTC', account_index: 1, gap_limit: 6 });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const result = await finished(s, 'scan_for_new_addresses', init.body.result.task_id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.ok(scanAddressesInfo.check(result.details), JSON.stringify(scanAddressesInfo.firstProblem(result.details)));
      const external = await Promise.all([1, 2, 3, 4, 5].map((i) => ltcAddress(1, 'External', i)));
      const internal = await Promise.all([0, 1, 2, 3].map((i) => ltcAddress(1, 'Internal', i)));
      assert.deepEqual(result.details, {
        account_index: 1,
        derivation_path: "m/44'/2'/1'",
        new_addresses: [
          // gap addresses before a used one come with an empty balance map, as the reference's
          ...[1, 2, 3, 4, 5].map((i, k) => ({ address: external[k], derivation_path: path(1, 'External', i), chain: 'External', balance: i === 5 ? bal('0.7') : {} })),
          ...[0, 1, 2, 3].map((i, k) => ({ address: internal[k], derivation_path: path(1, 'Internal', i), chain: 'Internal', balance: i === 3 ? bal('0.3') : {} })),
        ],
      });
      const scanned = (await eventsOfType(s, 'AddressesScanned')).map((e) => e.type === 'AddressesScanned' && [e.data.chain, e.data.knownAddresses, e.data.addresses.length]);
      assert.deepEqual(scanned, [['External', 6, 5], ['Internal', 4, 4]]);
      // Another account: the reference's quirk (CoinIsActivatedNotWithHDWallet, not UnknownAccount).
      const other = await s.v2('task::scan_for_new_addresses::init', { coin: 'LTC', account_index: 0 });
      const otherResult = await finished(s, 'scan_for_new_addresses', other.body.result.task_id);
      assert.equal(otherResult.details.error_type, 'CoinIsActivatedNotWithHDWallet');
      // A scan task answers to its own kind only.
      const wrongKind = await s.v2('task::get_new_address::status', { task_id: init.body.result.task_id });
      assert.equal(wrongKind.body.error_type, 'NoSuchTask');
      // The new addresses are watched too.
      assert.equal(s.service.registry.watchedBalance('LTC', 'LTC', internal[3]!)?.balance.spendable, 30_000_000n);
    } finally {
      await s.stop();
    }

    // A restart: the log knows every address; the coin activates again without a scan and lists them all.
    s = await stack(dbdir);
    try {
      const again = await activate(s, 1);
      const listed = again.wallet_balance.accounts[0].addresses.map((a: any) => a.derivation_path);
      assert.deepEqual(listed, [0, 1, 2, 3, 4, 5].map((i) => path(1, 'External', i)).concat([0, 1, 2, 3].map((i) => path(1, 'Internal', i))));
      assert.deepEqual(again.wallet_balance.accounts[0].total_balance, bal('1'));
      // The next address continues after them (address 5 is used, so the gap rule lets it through).
      const next = await s.v2('get_new_address', { coin: 'LTC', account_id: 1 });
      assert.equal(next.body.result.new_address.derivation_path, path(1, 'External', 6));

      // Replay: the HD counts rebuilt from the log alone.
      const projection = new HdAddressesProjection();
      for await (const e of s.service.log.read()) projection.apply(e);
      const walletId = (await eventsOfType(s, 'CoinActivated')).map((e) => e.type === 'CoinActivated' && e.data.hd?.walletId).at(-1) as string;
      assert.deepEqual([projection.known(walletId, 'LTC', 1, 'External'), projection.known(walletId, 'LTC', 1, 'Internal')], [7, 4]);
    } finally {
      await s.stop();
    }
  });
});
