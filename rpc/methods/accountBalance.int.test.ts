import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toQuantity } from 'ethers';
import { startEvmDevnet, startLatencyProxy, type EvmDevnet } from '../../devnet/index.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';
import { accountBalanceResult } from '../../spec/accountBalance.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, startStack } from '../../devnet/testing/stack.ts';

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

describe('account_balance (EVM HD wallet, devnet)', () => {
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
});
