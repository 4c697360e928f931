import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firstAddressId, readAccountPage, type AccountPageDeps } from './accountBalance.ts';
import type { ActivatedCoin, Balance } from '../machines/activation.types.ts';
import type { WatchedBalance } from './ports/balanceWatch.ts';
import { watchKey } from '../machines/balanceWatch.machine.ts';
import { isActivationError } from '../spec/errors.ts';

const b = (spendable: bigint): Balance => ({ spendable, unspendable: 0n });
const coin: ActivatedCoin = {
  ticker: 'ETH',
  family: 'evm',
  address: '0xA0',
  pubkey: '04',
  derivationMethod: 'HDWallet',
  currentBlock: 1,
  decimals: 18,
  tokens: [{ ticker: 'USDT-ERC20', contractAddress: '0xC0', decimals: 6 }],
  hd: {
    walletId: 'w',
    accountId: 0,
    accountPath: "m/44'/60'/0'",
    chain: 'External',
    knownAddresses: 2,
    addresses: ['0xA0', '0xA1'].map((address, i) => ({ address, derivationPath: `m/44'/60'/0'/0/${i}`, chain: 'External' as const, balances: {} })),
  },
  connection: undefined,
} as ActivatedCoin;
const request = { accountIndex: 0, chain: 'External' as const, limit: 10 };

/** Deps whose node answers `chain` (and counts its reads); `watched` holds values by key. */
function deps(chain: Map<string, Balance>, watched: Map<string, { balance: Balance; fresh: boolean }> = new Map()) {
  const reads: (readonly WatchedBalance[])[] = [];
  const d: AccountPageDeps = {
    watched: (_p, ticker, address) => watched.get(watchKey({ ticker, address })),
    read: async (_c, balances) => {
      reads.push(balances);
      return { block: 2, balances: new Map(balances.map((x) => [watchKey(x), chain.get(watchKey(x))!])) };
    },
  };
  return { d, reads };
}
const chain = new Map([
  [watchKey({ ticker: 'ETH', address: '0xA0' }), b(5n)],
  [watchKey({ ticker: 'USDT-ERC20', address: '0xA0' }), b(0n)],
  [watchKey({ ticker: 'ETH', address: '0xA1' }), b(0n)],
  [watchKey({ ticker: 'USDT-ERC20', address: '0xA1' }), b(7n)],
]);

describe('account_balance pages (actors/accountBalance.ts)', () => {
  test('Given a page with a value not watched, When read, Then one node read holds every address and token', async () => {
    const { d, reads } = deps(chain, new Map([[watchKey({ ticker: 'ETH', address: '0xA0' }), { balance: b(5n), fresh: true }]]));
    const page = await readAccountPage(coin, request, d, AbortSignal.timeout(1000));
    assert.equal(reads.length, 1);
    assert.equal(reads[0]!.length, 4);
    assert.equal(page.fromWatchers, false);
    assert.deepEqual(page.addresses.map((x) => Object.fromEntries(x.balances)), [{ ETH: b(5n), 'USDT-ERC20': b(0n) }, { ETH: b(0n), 'USDT-ERC20': b(7n) }]);
  });

  test('Given every value of the page watched and fresh, When read, Then no node call', async () => {
    const fresh = new Map([...chain].map(([k, v]) => [k, { balance: v, fresh: true }]));
    const { d, reads } = deps(new Map(), fresh);
    const page = await readAccountPage(coin, { ...request, paging: { FromId: 0 } }, d, AbortSignal.timeout(1000));
    assert.equal(reads.length, 0);
    assert.equal(page.fromWatchers, true);
    assert.deepEqual([page.skipped, page.total, page.addresses.map((x) => x.address)], [1, 2, ['0xA1']]);
  });

  test('Given a watched value older than a poll interval, When read, Then the node is asked', async () => {
    const stale = new Map([...chain].map(([k, v]) => [k, { balance: v, fresh: k !== watchKey({ ticker: 'ETH', address: '0xA1' }) }]));
    const { d, reads } = deps(chain, stale);
    await readAccountPage(coin, request, d, AbortSignal.timeout(1000));
    assert.equal(reads.length, 1);
  });

  test('Given an Iguana coin or another account, Then the reference error types', async () => {
    const { d } = deps(chain);
    const { hd: _hd, ...iguana } = coin;
    await assert.rejects(readAccountPage(iguana as ActivatedCoin, request, d, AbortSignal.timeout(1000)), (e) => isActivationError(e) && e.errorType === 'CoinIsActivatedNotWithHDWallet');
    await assert.rejects(readAccountPage(coin, { ...request, accountIndex: 3 }, d, AbortSignal.timeout(1000)), (e) => isActivationError(e) && e.errorType === 'UnknownAccount');
  });

  test('firstAddressId: after FromId, or (page - 1) * limit', () => {
    assert.deepEqual([firstAddressId(10, undefined), firstAddressId(10, { FromId: 4 }), firstAddressId(3, { PageNumber: 3 })], [0, 5, 6]);
  });
});
