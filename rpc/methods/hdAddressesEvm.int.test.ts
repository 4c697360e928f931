import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Interface, toQuantity } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress, evmToTronBase58 } from '../../infra/keys/index.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, devnetCoins, enableTrxParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { eventsOfType, eventually } from '../../devnet/testing/tasks.ts';

/**
 * HD address management of an ETH account with an ERC20 (issue 26), on the EVM devnet and a manual
 * clock: new addresses carry the token's balance too, the gap rule counts a token-only address as
 * used, a mint to a new address is one BalanceChanged at the next block, and the scan covers the
 * External chain only (as the reference's `eth_hd_wallet.rs`).
 */

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const POLL_S = 5;
const keys = createHdKeyProvider(MNEMONIC);
const addressAt = async (addressId: number) =>
  evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: "m/44'/60'" }, { accountId: 0, chain: 'External', addressId }));
const erc20 = new Interface(['function mint(address to, uint256 amount)']);

let devnet: EvmDevnet;
let a: string[];

before(async () => {
  a = await Promise.all(Array.from({ length: 8 }, (_, i) => addressAt(i)));
  devnet = await startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    fund: [{ address: a[0]!, wei: 10n ** 18n }],
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [] }],
  });
});
after(() => devnet.stop());

const bal = (eth: string, usdt: string) => ({ ETH: { spendable: eth, unspendable: '0' }, 'USDT-ERC20': { spendable: usdt, unspendable: '0' } });
const send = (tx: Record<string, unknown>) => devnet.request('eth_sendTransaction', [{ from: devnet.deployer, ...tx }]);
const mintUsdt = (to: string, amount: bigint) => send({ to: devnet.tokens[0]!.address, data: erc20.encodeFunctionData('mint', [to, amount]) });

async function finished(s: Stack, kind: string, taskId: number): Promise<any> {
  for (let i = 0; i < 5_000; i++) {
    const { body } = await s.v2(`task::${kind}::status`, { task_id: taskId, forget_if_finished: false });
    if (body.result.status === 'Ok' || body.result.status === 'Error') return body.result;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`task::${kind} ${taskId} did not finish`);
}

describe('HD addresses of an EVM platform with a token (devnet)', () => {
  test('get_new_address carries the token balance; a mint to a new address is a BalanceChanged and counts as use; the scan covers External only', async () => {
    const clock = new ManualClock();
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), balance_poll_s: POLL_S } : c));
    const s = await startStack({ devnet, clock, coins, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      const enabled = await s.v2('enable_eth_with_tokens', {
        ticker: 'ETH',
        nodes: [{ url: devnet.url }],
        swap_contract_address: SWAP_CONTRACT,
        fallback_swap_contract: SWAP_CONTRACT,
        erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }],
        gap_limit: 2,
      });
      assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
      assert.deepEqual(enabled.body.result.wallet_balance.accounts[0].addresses.map((x: any) => x.address), [a[0]]);

      const first = await s.v2('get_new_address', { coin: 'ETH', account_id: 0 });
      assert.deepEqual(first.body.result, { new_address: { address: a[1], derivation_path: "m/44'/60'/0'/0/1", chain: 'External', balance: bal('0', '0') } });
      const second = await s.v2('get_new_address', { coin: 'ETH', account_id: 0 });
      assert.equal(second.body.result.new_address.address, a[2]);
      const refused = await s.v2('get_new_address', { coin: 'ETH', account_id: 0 });
      assert.deepEqual([refused.status, refused.body.error_type, refused.body.error_data], [400, 'EmptyAddressesLimitReached', { gap_limit: 2 }]);
      // A token asks through its platform's account, which it shares: the same refusal.
      const token = await s.v2('get_new_address', { coin: 'USDT-ERC20', account_id: 0 });
      assert.deepEqual([token.status, token.body.error_type], [400, 'EmptyAddressesLimitReached']);

      // A mint to the new address 2, seen at the next block: one BalanceChanged for the token there.
      await eventually(() => s.service.registry.watchedBalance('ETH', 'USDT-ERC20', a[2]!) !== undefined, 'the new address to be watched');
      await mintUsdt(a[2]!, 1_500_000n);
      clock.advance(POLL_S * 1000);
      await eventually(() => s.service.registry.watchedBalance('ETH', 'USDT-ERC20', a[2]!)?.balance.spendable === 1_500_000n, 'the watcher to read the mint');
      await eventually(() => clock.dueIn().includes(POLL_S * 1000), 'the read to end');
      // The event is appended after the watcher's value changes: wait for the write, then check it is the only one.
      const changed = (await eventsOfType(s, 'BalanceChanged', 1)).map((e) => e.type === 'BalanceChanged' && `${e.data.ticker} ${e.data.address} ${e.data.old.spendable} -> ${e.data.new.spendable}`);
      assert.deepEqual(changed, [`USDT-ERC20 ${a[2]} 0 -> 1.5`]);
      // A token-only address is used: the next address is handed out, here through the token
      // (the platform's account, the token's balance only, as the reference's ERC20 coins answer).
      const third = await s.v2('get_new_address', { coin: 'USDT-ERC20', account_id: 0 });
      assert.deepEqual(third.body.result, {
        new_address: { address: a[3], derivation_path: "m/44'/60'/0'/0/3", chain: 'External', balance: { 'USDT-ERC20': { spendable: '0', unspendable: '0' } } },
      });

      // account_balance of the platform and of the token list every handed-out address.
      const account = await s.v2('account_balance', { coin: 'ETH', account_index: 0 });
      assert.deepEqual(account.body.result.addresses.map((x: any) => x.address), a.slice(0, 4));
      assert.deepEqual(account.body.result.page_balance, bal('1', '1.5'));
      const tokenPage = await s.v2('account_balance', { coin: 'USDT-ERC20', account_index: 0 });
      assert.deepEqual(tokenPage.body.result.addresses[2].balance, { 'USDT-ERC20': { spendable: '1.5', unspendable: '0' } });

      // A payment beyond the gap (address 6): the scan finds it with the gap addresses before it, External only.
      await send({ to: a[6], value: toQuantity(5n) });
      const init = await s.v2('task::scan_for_new_addresses::init', { coin: 'ETH', account_index: 0, gap_limit: 3 });
      const scan = await finished(s, 'scan_for_new_addresses', init.body.result.task_id);
      assert.equal(scan.status, 'Ok', JSON.stringify(scan));
      assert.deepEqual(scan.details, {
        account_index: 0,
        derivation_path: "m/44'/60'/0'",
        new_addresses: [4, 5, 6].map((i) => ({
          address: a[i],
          derivation_path: `m/44'/60'/0'/0/${i}`,
          chain: 'External',
          balance: i === 6 ? bal('0.000000000000000005', '0') : {},
        })),
      });
      const scanned = (await eventsOfType(s, 'AddressesScanned')).map((e) => e.type === 'AddressesScanned' && [e.data.chain, e.data.knownAddresses]);
      assert.deepEqual(scanned, [['External', 7]]);
      assert.notEqual(s.service.registry.watchedBalance('ETH', 'ETH', a[6]!), undefined, 'the found address is watched');
    } finally {
      await s.stop();
    }
  });

  test('TRON: an HD TRX hands out TRON addresses through its own reader, with the TRC20 balance; the gap rule reads TRON accounts', async () => {
    const tronAt = async (addressId: number) => evmAddress(await keys.publicKey({ coin: 'TRX', derivation_path: "m/44'/195'" }, { accountId: 0, chain: 'External', addressId }));
    const s = await startStack({ devnet, tron: true, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableTrxParams(s, ['USDT-TRC20'], { gap_limit: 1 }))).status, 200);
      const refused = await s.v2('get_new_address', { coin: 'TRX', account_id: 0 });
      assert.deepEqual([refused.status, refused.body.error_type, refused.body.error_data], [400, 'EmptyAddressesLimitReached', { gap_limit: 1 }]);
      await devnet.request('hardhat_setBalance', [await tronAt(0), '0x64']);
      const created = await s.v2('get_new_address', { coin: 'TRX', account_id: 0 });
      assert.deepEqual(created.body.result, {
        new_address: {
          address: evmToTronBase58(await tronAt(1)),
          derivation_path: "m/44'/195'/0'/0/1",
          chain: 'External',
          balance: { TRX: { spendable: '0', unspendable: '0' }, 'USDT-TRC20': { spendable: '0', unspendable: '0' } },
        },
      });
    } finally {
      await s.stop();
    }
  });
});
