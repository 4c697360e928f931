import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoinEntry } from '../spec/coins.ts';
import { fakePlan } from '../devnet/testing/fixtures.ts';
import { planSettings } from './coinSettings.ts';

const entries: Record<string, CoinEntry> = {
  ETH: { coin: 'ETH', protocol: { type: 'ETH' }, required_confirmations: 5, mm2: 1 } as CoinEntry,
  'USDT-ERC20': { coin: 'USDT-ERC20', protocol: { type: 'ERC20' }, required_confirmations: 8, wallet_only: true } as CoinEntry,
  'DAI-ERC20': { coin: 'DAI-ERC20', protocol: { type: 'ERC20' }, mm2: 0 } as CoinEntry,
  BARE: { coin: 'BARE', protocol: { type: 'ETH' } } as CoinEntry,
};
const coins = { find: (ticker: string) => entries[ticker] };
const swapContracts = { swapContractAddress: '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80', fallbackSwapContract: null };
const station = { url: 'https://gas.example:8443/v1/price?apikey=SECRET', decimals: 9, policy: 'Average' as const };

test('confirmations: the request wins, else the coins entry, else 3', () => {
  const plan = fakePlan('ETH');
  assert.equal(planSettings({ requiredConfirmations: 1 }, entries.ETH!, coins, plan).coin.requiredConfirmations, 1);
  assert.equal(planSettings({}, entries.ETH!, coins, plan).coin.requiredConfirmations, 5);
  assert.equal(planSettings({}, entries.BARE!, coins, fakePlan('BARE')).coin.requiredConfirmations, 3);
  assert.equal(planSettings({ requiredConfirmations: 0 }, entries.BARE!, coins, fakePlan('BARE')).coin.requiredConfirmations, 0, 'zero is a value');
});

test("a token: its own request's confirmations, else its entry's, else its platform's (as the reference)", () => {
  const plan = fakePlan('ETH', ['USDT-ERC20', 'DAI-ERC20']);
  const request = { requiredConfirmations: 2, tokens: [{ ticker: 'USDT-ERC20' }, { ticker: 'DAI-ERC20', requiredConfirmations: 11 }] };
  const { tokens } = planSettings(request, entries.ETH!, coins, plan);
  assert.equal(tokens['USDT-ERC20']?.requiredConfirmations, 8, 'its entry');
  assert.equal(tokens['DAI-ERC20']?.requiredConfirmations, 11, 'its own request');
  const { tokens: none } = planSettings({ requiredConfirmations: 2 }, entries.ETH!, coins, fakePlan('ETH', ['DAI-ERC20']));
  assert.equal(none['DAI-ERC20']?.requiredConfirmations, 2, "the platform's");
});

test("mm2 and wallet_only: each coin's own (request, else entry; null when neither); the rest the platform's", () => {
  const plan = { ...fakePlan('ETH', ['USDT-ERC20', 'DAI-ERC20']), swapContracts };
  const request = { requiresNotarization: true, txHistory: true, gasStation: station };
  const { coin, tokens } = planSettings(request, entries.BARE!, coins, plan);
  assert.equal(coin.mm2, null);
  assert.equal(planSettings({ mm2: 0 }, entries.ETH!, coins, plan).coin.mm2, 0, 'the request wins');
  assert.equal(planSettings({}, entries.ETH!, coins, plan).coin.mm2, 1);
  assert.equal(coin.walletOnly, false);
  assert.equal(tokens['USDT-ERC20']?.walletOnly, true);
  assert.equal(tokens['USDT-ERC20']?.mm2, null);
  assert.equal(tokens['DAI-ERC20']?.mm2, 0);
  for (const t of Object.values(tokens)) {
    assert.equal(t.requiresNotarization, true);
    assert.equal(t.txHistory, true);
    assert.deepEqual(t.gasStation, coin.gasStation);
    assert.equal(t.swapContractAddress, swapContracts.swapContractAddress);
  }
});

test('the gas station is kept by its origin only: its path and query may hold an API key', () => {
  const { coin } = planSettings({ gasStation: station }, entries.ETH!, coins, fakePlan('ETH'));
  assert.deepEqual(coin.gasStation, { origin: 'https://gas.example:8443', decimals: 9, policy: 'Average' });
  assert.doesNotMatch(JSON.stringify(coin), /SECRET|apikey|v1/);
});

test('defaults: no notarization, no history, no station, no contracts', () => {
  const { coin } = planSettings({}, entries.ETH!, coins, fakePlan('ETH'));
  assert.deepEqual(coin, {
    requiredConfirmations: 5,
    requiresNotarization: false,
    mm2: 1,
    walletOnly: false,
    swapContractAddress: null,
    fallbackSwapContract: null,
    swapV2Contracts: null,
    gasStation: null,
    txHistory: false,
  });
});

test('nft_req: the platform keeps its indexer by origin and proxy flag, never the URL; tokens keep none', () => {
  const plan = fakePlan('ETH', ['USDT-ERC20']);
  const nft = { url: 'https://nft.example:8443/moralis?key=SECRET', gatewayProxy: true };
  const { coin, tokens } = planSettings({ nft }, entries.ETH!, coins, plan);
  assert.deepEqual(coin.nftIndexer, { origin: 'https://nft.example:8443', gatewayProxy: true });
  assert.equal('nftIndexer' in tokens['USDT-ERC20']!, false);
  assert.doesNotMatch(JSON.stringify({ coin, tokens }), /SECRET|moralis/);
  assert.equal('nftIndexer' in planSettings({}, entries.ETH!, coins, plan).coin, false, 'absent without nft_req');
});
