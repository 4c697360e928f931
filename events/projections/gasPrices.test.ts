import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextGasPrice } from './gasPrices.ts';
import { activation } from '../../devnet/testkits/statusScenario.ts';
import type { DomainEvent } from '../../spec/events.ts';

const updated = (ticker: string, gasPriceWei: string, updatedAt = '2025-01-01T00:00:00.000Z'): DomainEvent => ({ type: 'GasPriceUpdated', data: { ticker, gasPriceWei, updatedAt } });
const stale = (ticker: string, since: string): DomainEvent => ({ type: 'GasPriceStale', data: { ticker, since, reason: 'HTTP 500' } });

describe('nextGasPrice', () => {
  test('an update sets the price (gwei exact) and ends staleness; a stale event keeps price and age', () => {
    const fresh = nextGasPrice(undefined, updated('ETH', '1'));
    assert.deepEqual(fresh, { gasPriceWei: '1', gasPriceGwei: '0.000000001', updatedAt: '2025-01-01T00:00:00.000Z', stale: false });
    const old = nextGasPrice(fresh, stale('ETH', '2025-01-01T00:01:00.000Z'));
    assert.deepEqual(old, { ...fresh, stale: true, staleSince: '2025-01-01T00:01:00.000Z' });
    assert.deepEqual(nextGasPrice(old, updated('ETH', '1', '2025-01-01T00:03:00.000Z')), { ...fresh, updatedAt: '2025-01-01T00:03:00.000Z' });
  });

  test('stale without a price stays without one; lifecycle events clear it; a disabled token and becoming passive keep it', () => {
    assert.equal(nextGasPrice(undefined, stale('ETH', '2025-01-01T00:01:00.000Z')), undefined);
    const price = nextGasPrice(undefined, updated('ETH', '30000000000'));
    assert.equal(nextGasPrice(price, { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } }), price);
    // a passive platform is still read for its tokens
    assert.equal(nextGasPrice(price, { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } }), price);
    const clearing: DomainEvent[] = [
      { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } },
      { type: 'CoinActivated', data: activation('ETH') },
      { type: 'ActivationInterrupted', data: { ticker: 'ETH', attempt: 1, sessionId: 's' } },
      { type: 'SessionStarted', data: { sessionId: 's', version: '0', derivationMethod: 'Iguana' } },
    ];
    for (const event of clearing) assert.equal(nextGasPrice(price, event), undefined, event.type);
  });
});
