import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toQuantity } from 'ethers';
import { startEvmDevnet, startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';
import { accountBalanceResult } from '../../spec/accountBalance.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, enableTrxParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { evmToTronBase58 } from '../../infra/keys/index.ts';
import { HdAccountInfo } from '../../spec/activationResult.ts';
import { compile } from '../../spec/validate.ts';

const hdAccountInfo = compile(HdAccountInfo);
import { TaskStatusProjection } from '../../events/projections/taskStatus.ts';
import { renderTaskStatus } from '../../spec/render/taskStatus.ts';
import { taskStream } from '../../events/log/eventLog.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const keys = createHdKeyProvider(MNEMONIC);
const addressAt = async (addressId: number) =>
  evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: "m/44'/60'" }, { accountId: 0, chain: 'External', addressId }));

let devnet: EvmDevnet;
let a: string[]; // account 0, External, 0..6

before(async () => {
  a = await Promise.all(Array.from({ length: 7 }, (_, i) => addressAt(i)));
  devnet = await startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    fund: [
      { address: a[0]!, wei: 10n ** 18n },
      { address: a[2]!, wei: 3n },
    ],
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: a[1]!, amount: 1_500_000n }] }],
  });
});
after(() => devnet.stop());

const ethParams = (url: string) => ({
  ticker: 'ETH',
  nodes: [{ url }],
  swap_contract_address: SWAP_CONTRACT,
  fallback_swap_contract: SWAP_CONTRACT,
  erc20_tokens_requests: [{ ticker: 'USDT-ERC20' }],
  gap_limit: 2,
});
const bal = (spendable: string) => ({ spendable, unspendable: '0' });

describe('account_balance and task::account_balance (EVM and TRON HD wallets, devnet)', () => {
  test('Given an HD ETH with USDT, When account_balance is asked, Then every listed address with exact balances, read again from the chain in one round trip', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', ethParams(proxy.url))).status, 200);
      // a payment after activation: account_balance reads the chain again
      await devnet.request('eth_sendTransaction', [{ from: devnet.deployer, to: a[2], value: toQuantity(4n) }]);
      proxy.reset();
      const { status, body } = await s.v2('account_balance', { coin: 'ETH', account_index: 0 });
      assert.equal(status, 200, JSON.stringify(body));
      assert.ok(accountBalanceResult.check(body.result), JSON.stringify(accountBalanceResult.firstProblem(body.result)));
      assert.deepEqual(body.result, {
        account_index: 0,
        derivation_path: "m/44'/60'/0'",
        addresses: [0, 1, 2].map((i) => ({
          address: a[i],
          derivation_path: `m/44'/60'/0'/0/${i}`,
          chain: 'External',
          balance: [
            { ETH: bal('1'), 'USDT-ERC20': bal('0') },
            { ETH: bal('0'), 'USDT-ERC20': bal('1.5') },
            { ETH: bal('0.000000000000000007'), 'USDT-ERC20': bal('0') },
          ][i],
        })),
        page_balance: { ETH: bal('1.000000000000000007'), 'USDT-ERC20': bal('1.5') },
        limit: 10,
        skipped: 0,
        total: 3,
        total_pages: 1,
        paging_options: { PageNumber: 1 },
      });
      assert.equal(proxy.stats().httpRequests, 1, JSON.stringify(proxy.stats()));

      // paging: a page of one after address 0; page 2 of one; a token answers with its own balances
      const fromId = await s.v2('account_balance', { coin: 'ETH', account_index: 0, limit: 1, paging_options: { FromId: 0 } });
      assert.deepEqual(fromId.body.result.addresses.map((x: any) => x.address), [a[1]]);
      assert.deepEqual([fromId.body.result.skipped, fromId.body.result.total_pages], [1, 3]);
      const page3 = await s.v2('account_balance', { coin: 'ETH', account_index: 0, limit: 1, paging_options: { PageNumber: 3 } });
      assert.deepEqual(page3.body.result.addresses.map((x: any) => x.address), [a[2]]);
      const token = await s.v2('account_balance', { coin: 'USDT-ERC20', account_index: 0 });
      assert.deepEqual(token.body.result.page_balance, { 'USDT-ERC20': bal('1.5') });
      assert.deepEqual(token.body.result.addresses[1].balance, { 'USDT-ERC20': bal('1.5') });
      // the Internal chain: this account lists no address there
      const internal = await s.v2('account_balance', { coin: 'ETH', account_index: 0, chain: 'Internal' });
      assert.deepEqual([internal.body.result.addresses, internal.body.result.total], [[], 0]);

      // another account, an unknown coin: the reference's errors
      const other = await s.v2('account_balance', { coin: 'ETH', account_index: 1 });
      assert.equal(other.status, 400);
      assert.deepEqual([other.body.error_type, other.body.error_data], ['UnknownAccount', { account_id: 1 }]);
      const none = await s.v2('account_balance', { coin: 'NOPE', account_index: 0 });
      assert.equal(none.status, 400);
      assert.deepEqual([none.body.error_type, none.body.error_data], ['NoSuchCoin', { coin: 'NOPE' }]);
      const bad = await s.v2('account_balance', { coin: 'ETH', account_index: 0, chain: 'Sideways' });
      assert.equal(bad.body.error_type, 'InvalidRequest');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });

  test('Given an Iguana ETH, When account_balance is asked, Then CoinIsActivatedNotWithHDWallet as the reference answers', async () => {
    const s = await startStack({ devnet, config: { passphrase: MNEMONIC } });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', { ...ethParams(devnet.url), gap_limit: undefined })).status, 200);
      const { status, body } = await s.v2('account_balance', { coin: 'ETH', account_index: 0 });
      assert.equal(status, 400);
      assert.equal(body.error_type, 'CoinIsActivatedNotWithHDWallet');
      assert.equal(body.error, 'Coin is expected to be activated with the HD wallet derivation method');
      assert.equal('error_data' in body, false);
    } finally {
      await s.stop();
    }
  });

  test('task::account_balance: init, RequestingAccountBalance, then Ok with spec 2.3 WalletAccountInfo; its events replay to the same status', async () => {
    const s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', ethParams(devnet.url))).status, 200);
      const init = await s.v2('task::account_balance::init', { coin: 'ETH', account_index: 0 });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const taskId: number = init.body.result.task_id;
      const result = await finished(s, taskId);
      assert.equal(result.status, 'Ok');
      assert.ok(hdAccountInfo.check(result.details), JSON.stringify(hdAccountInfo.firstProblem(result.details)));
      assert.equal(result.details.account_index, 0);
      assert.equal(result.details.derivation_path, "m/44'/60'/0'");
      assert.deepEqual(result.details.addresses.map((x: any) => [x.address, x.derivation_path, x.chain]), [0, 1, 2].map((i) => [a[i], `m/44'/60'/0'/0/${i}`, 'External']));
      assert.deepEqual(result.details.addresses[1].balance, { ETH: bal('0'), 'USDT-ERC20': bal('1.5') });
      // address 2: 3 wei funded, 4 sent by the first test
      assert.deepEqual(result.details.total_balance, { ETH: bal('1.000000000000000007'), 'USDT-ERC20': bal('1.5') });

      // replay: the task's events alone give the same status
      const projection = new TaskStatusProjection();
      const kinds: string[] = [];
      for await (const e of s.service.log.read()) {
        projection.apply(e);
        if (e.metadata.stream === taskStream(taskId)) kinds.push(e.type === 'TaskProgressed' ? `${e.type}/${e.data.details}` : e.type);
      }
      assert.deepEqual(kinds, ['TaskCreated', 'TaskProgressed/RequestingAccountBalance', 'TaskSucceeded']);
      assert.deepEqual(renderTaskStatus(projection.get(taskId)!), result);

      // a finished task cannot be cancelled; a task answers to its own kind only; forget_if_finished forgets it
      const late = await s.v2('task::account_balance::cancel', { task_id: taskId });
      assert.deepEqual([late.status, late.body.error_type], [409, 'TaskFinished']);
      assert.equal((await s.v2('task::enable_eth::status', { task_id: taskId, forget_if_finished: false })).body.error_type, 'NoSuchTask');
      assert.equal((await s.v2('task::account_balance::status', { task_id: taskId, forget_if_finished: true })).status, 200);
      assert.equal((await s.v2('task::account_balance::status', { task_id: taskId, forget_if_finished: false })).body.error_type, 'NoSuchTask');

      // another account: the task ends Error with the reference's UnknownAccount
      const other = await s.v2('task::account_balance::init', { coin: 'ETH', account_index: 1 });
      const failed = await finished(s, other.body.result.task_id);
      assert.equal(failed.status, 'Error');
      assert.deepEqual([failed.details.error_type, failed.details.error_data], ['UnknownAccount', { account_id: 1 }]);
      // a coin not enabled: init refuses at once, no task
      const none = await s.v2('task::account_balance::init', { coin: 'NOPE', account_index: 0 });
      assert.deepEqual([none.status, none.body.error_type, none.body.error_data], [400, 'NoSuchCoin', { coin: 'NOPE' }]);
    } finally {
      await s.stop();
    }
  });

  test('Given an HD TRX with USDT-TRC20, When its balance changes after activation, Then account_balance and the task read it again through the TRON reader', async () => {
    const trx0 = evmAddress(await keys.publicKey({ coin: 'TRX', derivation_path: "m/44'/195'" }));
    const s = await startStack({ devnet, tron: true, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      await devnet.request('hardhat_setBalance', [trx0, '0x2a']);
      assert.equal((await s.v2('enable_eth_with_tokens', enableTrxParams(s, ['USDT-TRC20'], { gap_limit: 1 }))).status, 200);
      await devnet.request('hardhat_setBalance', [trx0, '0x64']);
      const { status, body } = await s.v2('account_balance', { coin: 'TRX', account_index: 0 });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.result.derivation_path, "m/44'/195'/0'");
      assert.equal(body.result.addresses[0].address, evmToTronBase58(trx0));
      assert.deepEqual(body.result.addresses[0].balance, { TRX: bal('0.0001'), 'USDT-TRC20': bal('0') });
      const init = await s.v2('task::account_balance::init', { coin: 'TRX', account_index: 0 });
      const done = await finished(s, init.body.result.task_id);
      assert.deepEqual(done.details.total_balance, { TRX: bal('0.0001'), 'USDT-TRC20': bal('0') });
    } finally {
      await s.stop();
    }
  });

  test('task::account_balance of an Iguana ETH ends Error CoinIsActivatedNotWithHDWallet', async () => {
    const s = await startStack({ devnet, config: { passphrase: MNEMONIC } });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', { ...ethParams(devnet.url), gap_limit: undefined })).status, 200);
      const init = await s.v2('task::account_balance::init', { coin: 'ETH', account_index: 0 });
      const result = await finished(s, init.body.result.task_id);
      assert.deepEqual([result.status, result.details.error_type], ['Error', 'CoinIsActivatedNotWithHDWallet']);
    } finally {
      await s.stop();
    }
  });
});

/** Polls `task::account_balance::status` until the task is finished. */
async function finished(s: Stack, taskId: number): Promise<any> {
  for (let i = 0; i < 5_000; i++) {
    const { status, body } = await s.v2('task::account_balance::status', { task_id: taskId, forget_if_finished: false });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(['Ok', 'InProgress', 'Error'].includes(body.result.status), JSON.stringify(body));
    if (body.result.status !== 'InProgress') return body.result;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`task ${taskId} did not finish`);
}

