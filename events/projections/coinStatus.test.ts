import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../spec/events.ts';
import { nextCoinStatus, type CoinStatus } from './coinStatus.ts';
import { EventScript } from '../../devnet/testkits/eventScript.ts';
import { activation, coinSettings } from '../../devnet/testkits/statusScenario.ts';

const key = { nodeId: 'n1', ticker: 'ETH' };

function fold(events: readonly StoredEvent[]): CoinStatus | undefined {
  return events.reduce<CoinStatus | undefined>((s, e) => nextCoinStatus(s, e, key) ?? s, undefined);
}

const request = (s: EventScript, attempt = 1, tokens: string[] = []) =>
  s.coin('ETH', { type: 'ActivationRequested', data: { ticker: 'ETH', family: 'evm', via: 'enable_eth_with_tokens', tokens, getBalances: true, attempt } });

test('an activated coin shows its address, block, tokens and balances (platform and tokens)', () => {
  const s = new EventScript('n1');
  s.session();
  request(s);
  assert.equal(fold(s.events)?.state, 'activating');
  const done = s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) });
  assert.deepEqual(fold(s.events), {
    nodeId: 'n1',
    ticker: 'ETH',
    state: 'active',
    sessionId: s.sessionId,
    address: '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d',
    currentBlock: 1234,
    derivationMethod: 'Iguana',
    activatedAt: done.metadata.time,
    tokens: [{ ticker: 'USDT-ERC20', contractAddress: `0x${'1'.padStart(40, '0')}`, decimals: 6, activatedAt: done.metadata.time }],
    balances: { ETH: { spendable: '1.5', unspendable: '0' }, 'USDT-ERC20': { spendable: '10.25', unspendable: '0' } },
    lastSeq: done.metadata.seq,
    updatedAt: done.metadata.time,
  });
});

test('without balances read, the status has no balances', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20'], { noBalances: true }) });
  const status = fold(s.events);
  assert.equal(status?.state, 'active');
  assert.equal(status?.balances, undefined);
});

test('a failure leaves the coin inactive with the error; the next request clears it', () => {
  const s = new EventScript('n1');
  request(s);
  const error = { errorType: 'Transport', message: 'down', data: 'down' };
  s.coin('ETH', { type: 'ActivationFailed', data: { ticker: 'ETH', error, attempt: 1 } });
  assert.deepEqual(fold(s.events), { nodeId: 'n1', ticker: 'ETH', state: 'inactive', sessionId: s.sessionId, error, lastSeq: 2, updatedAt: s.events[1]!.metadata.time });
  request(s, 2);
  assert.equal(fold(s.events)?.error, undefined);
});

test('passive keeps the platform for its tokens; a failed re-activation stays passive; a successful one keeps them', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20', 'DAI-ERC20']) });
  s.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20', 'DAI-ERC20'] } });
  assert.equal(fold(s.events)?.state, 'passive');
  request(s, 2);
  const reactivating = fold(s.events);
  assert.equal(reactivating?.state, 'activating');
  assert.deepEqual(reactivating?.tokens?.map((t) => t.ticker), ['USDT-ERC20', 'DAI-ERC20'], 'tokens stay enabled meanwhile');
  s.coin('ETH', { type: 'ActivationFailed', data: { ticker: 'ETH', error: { errorType: 'Transport', message: 'x' }, attempt: 2 } });
  assert.equal(fold(s.events)?.state, 'passive');
  assert.equal(fold(s.events)?.error?.errorType, 'Transport');
  request(s, 3);
  s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'DAI-ERC20', platform: 'ETH' } });
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['LINK-ERC20'], { attempt: 3 }) });
  const active = fold(s.events);
  assert.equal(active?.state, 'active');
  assert.deepEqual(active?.tokens?.map((t) => t.ticker), ['LINK-ERC20', 'USDT-ERC20'], 'fresh first, then kept; the disabled one is gone');
  assert.deepEqual(Object.keys(active?.balances ?? {}).sort(), ['ETH', 'LINK-ERC20', 'USDT-ERC20']);
});

test('disabling a token drops it and its balance; disabling the coin makes it inactive', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) });
  s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });
  assert.deepEqual(fold(s.events)?.tokens, []);
  assert.deepEqual(fold(s.events)?.balances, { ETH: { spendable: '1.5', unspendable: '0' } });
  s.coin('ETH', { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } });
  const status = fold(s.events);
  assert.equal(status?.state, 'inactive');
  assert.equal(status?.address, undefined);
  assert.equal(status?.tokens, undefined);
});

test('a cancelled activation of an inactive coin leaves it inactive', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 1 } });
  assert.equal(fold(s.events)?.state, 'inactive');
});

test('a new session makes the coin inactive; an interrupted activation is recorded as its error', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH') });
  const dead = s.sessionId;
  const start = s.session();
  const reset = fold(s.events);
  assert.deepEqual(reset, { nodeId: 'n1', ticker: 'ETH', state: 'inactive', sessionId: start.metadata.sessionId, lastSeq: start.metadata.seq, updatedAt: start.metadata.time });
  s.coin('ETH', { type: 'ActivationInterrupted', data: { ticker: 'ETH', attempt: 1, sessionId: dead } });
  assert.match(fold(s.events)?.error?.message ?? '', new RegExp(`session ${dead}`));
});

test('events of no concern change nothing', () => {
  const s = new EventScript('n1');
  const e = s.task(1, { type: 'TaskCancelled', data: { taskId: 1 } });
  assert.equal(nextCoinStatus(undefined, e, key), undefined);
});

test('gas price: shown while active, kept with its age when stale and when a token goes, dropped when the coin leaves active', () => {
  const s = new EventScript('n1');
  request(s, 1, ['USDT-ERC20', 'DAI-ERC20']);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20', 'DAI-ERC20']) });
  const price = { ticker: 'ETH', gasPriceWei: '75000000001', updatedAt: '2025-01-01T00:00:05.000Z' };
  const updated = s.coin('ETH', { type: 'GasPriceUpdated', data: price });
  const fresh = { gasPriceWei: '75000000001', gasPriceGwei: '75.000000001', updatedAt: price.updatedAt, stale: false };
  assert.deepEqual(fold(s.events)?.gasPrice, fresh);
  assert.equal(fold(s.events)?.lastSeq, updated.metadata.seq);
  s.coin('ETH', { type: 'GasPriceStale', data: { ticker: 'ETH', since: '2025-01-01T00:01:05.000Z', reason: 'HTTP 500' } });
  assert.deepEqual(fold(s.events)?.gasPrice, { ...fresh, stale: true, staleSince: '2025-01-01T00:01:05.000Z' });
  assert.equal(fold(s.events)?.state, 'active');
  s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'DAI-ERC20', platform: 'ETH' } });
  assert.equal(fold(s.events)?.gasPrice?.stale, true, 'a token disabled keeps the price');
  s.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } });
  assert.equal(fold(s.events)?.gasPrice, undefined, 'passive: no refresh, no price');
});

test('gas price events always give a new value (lastSeq moves), even one that leaves the price as it was', () => {
  // The projector decides a skip on a cached value that may be older than the key's: a reducer
  // that skipped by content (a stale event on a value without a price yet) would lose the event.
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH') });
  const before = fold(s.events)!;
  const stale = s.coin('ETH', { type: 'GasPriceStale', data: { ticker: 'ETH', since: '2025-01-01T00:01:05.000Z', reason: 'HTTP 500' } });
  const after = nextCoinStatus(before, stale, key);
  assert.deepEqual(after, { ...before, lastSeq: stale.metadata.seq, updatedAt: stale.metadata.time });
  assert.equal(after?.gasPrice, undefined);
});

test("settings: the platform's and each token's from CoinActivated; the set events change one coin; a disabled token's go", () => {
  const s = new EventScript('n1');
  request(s, 1, ['USDT-ERC20', 'DAI-ERC20']);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20', 'DAI-ERC20'], { settings: true }) });
  assert.deepEqual(fold(s.events)?.settings, { ETH: coinSettings(), 'USDT-ERC20': coinSettings(), 'DAI-ERC20': coinSettings() });
  s.coin('ETH', { type: 'RequiredConfirmationsSet', data: { ticker: 'USDT-ERC20', platform: 'ETH', confirmations: 12 } });
  const set = s.coin('ETH', { type: 'RequiresNotarizationSet', data: { ticker: 'ETH', platform: 'ETH', requiresNotarization: true } });
  const changed = fold(s.events);
  assert.deepEqual(changed?.settings, {
    ETH: coinSettings({ requiresNotarization: true }),
    'USDT-ERC20': coinSettings({ requiredConfirmations: 12 }),
    'DAI-ERC20': coinSettings(),
  });
  assert.equal(changed?.lastSeq, set.metadata.seq);
  s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });
  assert.deepEqual(Object.keys(fold(s.events)?.settings ?? {}), ['ETH', 'DAI-ERC20']);
});

test('settings: kept tokens keep theirs (and their time) through a passive re-activation', () => {
  const s = new EventScript('n1');
  request(s, 1, ['USDT-ERC20']);
  const first = s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20'], { settings: true }) });
  s.coin('ETH', { type: 'RequiredConfirmationsSet', data: { ticker: 'USDT-ERC20', platform: 'ETH', confirmations: 7 } });
  s.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } });
  request(s, 2, []);
  const second = s.coin('ETH', { type: 'CoinActivated', data: { ...activation('ETH', [], { settings: true, attempt: 2 }), settings: coinSettings({ requiredConfirmations: 5 }) } });
  const status = fold(s.events);
  assert.equal(status?.settings?.['USDT-ERC20']?.requiredConfirmations, 7);
  assert.equal(status?.settings?.ETH?.requiredConfirmations, 5);
  assert.equal(status?.activatedAt, second.metadata.time);
  assert.equal(status?.tokens?.[0]?.activatedAt, first.metadata.time);
});

test('an event log written before settings were kept replays: no settings, and a set event of such a coin changes only lastSeq', () => {
  const s = new EventScript('n1');
  request(s);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) });
  const before = fold(s.events);
  assert.equal(before?.settings, undefined);
  const set = s.coin('ETH', { type: 'RequiredConfirmationsSet', data: { ticker: 'ETH', platform: 'ETH', confirmations: 9 } });
  // Not skipped (the projector may decide a skip on an older cached value): only lastSeq moves.
  assert.deepEqual(nextCoinStatus(before, set, key), { ...before, lastSeq: set.metadata.seq, updatedAt: set.metadata.time });
});

test('a watched balance change replaces the balance of the coin or token at its address; each one moves lastSeq', () => {
  const s = new EventScript('n1');
  request(s, 1, ['USDT-ERC20']);
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20']) });
  const address = fold(s.events)!.address!;
  const zero = { spendable: '0', unspendable: '0' };
  s.coin('ETH', { type: 'BalanceChanged', data: { ticker: 'USDT-ERC20', platform: 'ETH', address, old: { spendable: '10.25', unspendable: '0' }, new: { spendable: '11', unspendable: '0' }, block: 1240 } });
  const eth = s.coin('ETH', { type: 'BalanceChanged', data: { ticker: 'ETH', platform: 'ETH', address, old: { spendable: '1.5', unspendable: '0' }, new: zero, block: 1241 } });
  const after = fold(s.events)!;
  assert.deepEqual(after.balances, { ETH: zero, 'USDT-ERC20': { spendable: '11', unspendable: '0' } });
  assert.equal(after.lastSeq, eth.metadata.seq);
  assert.equal(after.state, 'active');
  const other = s.coin('ETH', { type: 'BalanceChanged', data: { ticker: 'ETH', platform: 'ETH', address: '0x0000000000000000000000000000000000000001', old: zero, new: zero, block: 1242 } });
  assert.deepEqual(nextCoinStatus(after, other, key), { ...after, lastSeq: other.metadata.seq, updatedAt: other.metadata.time }, 'another address: only lastSeq moves');
});
