import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEvmDevnet, startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress, evmToTronBase58 } from '../../infra/keys/index.ts';
import { hdActivationResult } from '../../spec/activationResult.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, enableTrxParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { startTask, untilFinished } from '../../devnet/testing/tasks.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ETH_PATH = "m/44'/60'";
const keys = createHdKeyProvider(MNEMONIC);
/** The EVM address of account/chain/index on the ETH path. */
const addressAt = async (accountId: number, addressId: number, chain: 'External' | 'Internal' = 'External') =>
  evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: ETH_PATH }, { accountId, chain, addressId }));

let devnet: EvmDevnet;
let a: string[]; // account 0, External, 0..9
let account1: string;

before(async () => {
  a = await Promise.all(Array.from({ length: 10 }, (_, i) => addressAt(0, i)));
  account1 = await addressAt(1, 0);
  devnet = await startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    fund: [
      { address: a[0]!, wei: 10n ** 18n },
      { address: a[6]!, wei: 2n * 10n ** 18n + 1n },
      { address: account1, wei: 7n },
    ],
    // address 3 holds only a token: it counts as used
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: a[3]!, amount: 1_500_000n }, { address: a[0]!, amount: 1n }] }],
  });
});
after(() => devnet.stop());

function hdStack(options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  return startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC }, ...options });
}

const ethParams = (url: string, extra: Record<string, unknown> = {}) => ({
  ticker: 'ETH',
  nodes: [{ url }],
  swap_contract_address: SWAP_CONTRACT,
  fallback_swap_contract: SWAP_CONTRACT,
  erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }],
  ...extra,
});

describe('HD wallet: EVM activation with gap-limit scanning (devnet)', () => {
  test('scan finds used addresses (one token-only) across windows; HD result shape with exact balances', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await hdStack();
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', ethParams(proxy.url, { gap_limit: 5 }));
      assert.equal(status, 200, JSON.stringify(body));
      const result: any = body.result;
      assert.ok(hdActivationResult.check(result), JSON.stringify(hdActivationResult.firstProblem(result)));
      assert.equal(result.ticker, 'ETH');
      const account: any = result.wallet_balance.accounts[0];
      assert.equal(result.wallet_balance.accounts.length, 1);
      assert.equal(account.account_index, 0);
      assert.equal(account.derivation_path, "m/44'/60'/0'");
      assert.deepEqual(account.addresses.map((x: any) => x.address), a.slice(0, 7));
      assert.deepEqual(account.addresses.map((x: any) => x.derivation_path), Array.from({ length: 7 }, (_, i) => `m/44'/60'/0'/0/${i}`));
      assert.deepEqual(account.addresses[0].balance, { ETH: { spendable: '1', unspendable: '0' }, 'USDT-ERC20': { spendable: '0.000001', unspendable: '0' } });
      assert.deepEqual(account.addresses[3].balance, { ETH: { spendable: '0', unspendable: '0' }, 'USDT-ERC20': { spendable: '1.5', unspendable: '0' } });
      assert.deepEqual(account.addresses[6].balance.ETH, { spendable: '2.000000000000000001', unspendable: '0' });
      assert.deepEqual(account.total_balance, { ETH: { spendable: '3.000000000000000001', unspendable: '0' }, 'USDT-ERC20': { spendable: '1.500001', unspendable: '0' } });
      // windows of gap_limit: 0-4 (used 0, 3), 5-8 (used 6), 9-11: three batched round trips
      assert.equal(proxy.stats().httpRequests, 3);
      // the enabled address is account 0 / External / 0
      assert.deepEqual((await s.legacy('my_balance', { coin: 'ETH' })).body, { coin: 'ETH', balance: '1', unspendable_balance: '0', address: a[0] });
      assert.deepEqual((await s.legacy('get_enabled_coins')).body.result.find((c: any) => c.ticker === 'ETH'), { ticker: 'ETH', address: a[0] });

      // scan_if_new_wallet (the default): the next activation knows 7 addresses and does not rescan
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      proxy.reset();
      const again = await s.v2('enable_eth_with_tokens', ethParams(proxy.url, { gap_limit: 5 }));
      assert.equal(again.body.result.wallet_balance.accounts[0].addresses.length, 7);
      assert.equal(proxy.stats().httpRequests, 1, 'one round trip for the known addresses, no scan');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('the known count survives a restart (read back from the event log)', async () => {
    const first = await hdStack();
    const dbdir = `${first.dir}/db`;
    await first.v2('enable_eth_with_tokens', ethParams(devnet.url, { gap_limit: 5 }));
    await first.stop();
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const second = await hdStack({ dbdir });
    try {
      const { body } = await second.v2('enable_eth_with_tokens', ethParams(proxy.url, { gap_limit: 5 }));
      assert.equal(body.result.wallet_balance.accounts[0].addresses.length, 7);
      assert.equal(proxy.stats().httpRequests, 1);
    } finally {
      await second.stop();
      await proxy.stop();
    }
  });

  test('a fresh wallet at gap 20 with nothing used costs one round trip', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await hdStack({ config: { enable_hd: true, passphrase: 'legal winner thank year wave sausage worth useful legal winner thank yellow' } });
    try {
      const { status, body } = await s.v2('enable_eth_with_tokens', ethParams(proxy.url));
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.result.wallet_balance.accounts[0].addresses.length, 1);
      assert.equal(proxy.stats().httpRequests, 1);
      // One batch: the block, the 20 nonces, and the 20 native and 20 token balances in one
      // deployless call (a node seen for the first time).
      assert.deepEqual(proxy.stats().byMethod, { eth_blockNumber: 1, eth_getTransactionCount: 20, eth_call: 1 });
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('do_not_scan lists only the enabled address; min_addresses_number lists more; get_balances false omits balances', async () => {
    const s = await hdStack();
    try {
      const none = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { scan_policy: 'do_not_scan' }));
      assert.deepEqual(none.body.result.wallet_balance.accounts[0].addresses.map((x: any) => x.address), [a[0]]);
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const more = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { scan_policy: 'do_not_scan', min_addresses_number: 9, get_balances: false }));
      const account = more.body.result.wallet_balance.accounts[0];
      assert.deepEqual(account.addresses.map((x: any) => x.address), a.slice(0, 9));
      assert.equal(account.total_balance, undefined);
      assert.ok(account.addresses.every((x: any) => x.balance === undefined));
      assert.ok(hdActivationResult.check(more.body.result));
    } finally {
      await s.stop();
    }
  });

  test('path_to_address selects the enabled address: parts or the full derivation path', async () => {
    const s = await hdStack();
    try {
      const byParts = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { path_to_address: { account_id: 1, chain: 'External', address_id: 0 } }));
      assert.equal(byParts.status, 200, JSON.stringify(byParts.body));
      const account = byParts.body.result.wallet_balance.accounts[0];
      assert.equal(account.account_index, 1);
      assert.equal(account.derivation_path, "m/44'/60'/1'");
      assert.equal(account.addresses[0].address, account1);
      assert.equal((await s.legacy('my_balance', { coin: 'ETH' })).body.balance, '0.000000000000000007');
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const byPath = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { scan_policy: 'do_not_scan', path_to_address: { derivation_path: "m/44'/60'/0'/0/4" } }));
      assert.deepEqual(byPath.body.result.wallet_balance.accounts[0].addresses.map((x: any) => x.address), a.slice(0, 5));
      assert.equal((await s.legacy('get_enabled_coins')).body.result.find((c: any) => c.ticker === 'ETH').address, a[4]);
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const internal = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { scan_policy: 'do_not_scan', path_to_address: { account_id: 0, chain: 'Internal', address_id: 1 } }));
      // The account's known External addresses are listed first, as the reference's
      // `all_known_addresses_balances` lists them, then the Internal ones of the path (issue 26).
      const listedAddresses = internal.body.result.wallet_balance.accounts[0].addresses;
      assert.deepEqual(listedAddresses.map((x: any) => x.chain), ['External', 'External', 'External', 'External', 'Internal', 'Internal']);
      const internalAddresses = listedAddresses.slice(4);
      assert.deepEqual(listedAddresses.slice(0, 4).map((x: any) => x.address), a.slice(0, 4));
      assert.deepEqual(internalAddresses.map((x: any) => x.address), [await addressAt(0, 0, 'Internal'), await addressAt(0, 1, 'Internal')]);
      assert.equal(internalAddresses[1].derivation_path, "m/44'/60'/0'/1/1");
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const wrong = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { path_to_address: { derivation_path: "m/44'/195'/0'/0/0" } }));
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error_type, 'InvalidRequest');
    } finally {
      await s.stop();
    }
  });

  test('task::enable_eth reports the HD shape too', async () => {
    const s = await hdStack();
    try {
      const id = await startTask(s, ethParams(devnet.url, { gap_limit: 5 }));
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.ok(hdActivationResult.check(result.details));
      assert.equal(result.details.wallet_balance.accounts[0].addresses.length, 7);
    } finally {
      await s.stop();
    }
  });

  test('scan rescans a known wallet and finds an address used since; scan_if_new_wallet does not', async () => {
    const s = await hdStack();
    try {
      await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { gap_limit: 5 }));
      await devnet.request('hardhat_setBalance', [a[9]!, '0x5']); // used after the first scan
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const known = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { gap_limit: 5 }));
      assert.equal(known.body.result.wallet_balance.accounts[0].addresses.length, 7, 'scan_if_new_wallet: the known 7 only');
      await s.legacy('disable_coin', { coin: 'ETH', force_disable: true });
      const rescanned = await s.v2('enable_eth_with_tokens', ethParams(devnet.url, { gap_limit: 5, scan_policy: 'scan' }));
      const addresses = rescanned.body.result.wallet_balance.accounts[0].addresses;
      assert.equal(addresses.length, 10);
      assert.deepEqual(addresses[9].balance.ETH, { spendable: '0.000000000000000005', unspendable: '0' });
    } finally {
      await devnet.request('hardhat_setBalance', [a[9]!, '0x0']);
      await s.stop();
    }
  });

  test('TRON: the same account scan with TRON addresses (the same 20 bytes as the 195 path keys)', async () => {
    const trx0 = evmAddress(await keys.publicKey({ coin: 'TRX', derivation_path: "m/44'/195'" }));
    const s = await hdStack({ tron: true });
    try {
      // fund the TRON account 0 with SUN and a TRC20 (the devnet's ledger is the EVM chain)
      await devnet.request('hardhat_setBalance', [trx0, '0x2a']);
      const { status, body } = await s.v2('enable_eth_with_tokens', enableTrxParams(s, ['USDT-TRC20'], { gap_limit: 3 }));
      assert.equal(status, 200, JSON.stringify(body));
      assert.ok(hdActivationResult.check(body.result));
      const account = body.result.wallet_balance.accounts[0];
      assert.equal(account.derivation_path, "m/44'/195'/0'");
      assert.equal(account.addresses[0].address, evmToTronBase58(trx0));
      assert.deepEqual(account.addresses[0].balance, { TRX: { spendable: '0.000042', unspendable: '0' }, 'USDT-TRC20': { spendable: '0', unspendable: '0' } });
    } finally {
      await s.stop();
    }
  });
});
