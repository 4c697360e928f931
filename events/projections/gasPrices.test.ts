import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GasPricesProjection, nextGasPrice } from './gasPrices.ts';
import { EventScript } from '../../devnet/testkits/eventScript.ts';
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

  test('stale without a price stays without one; lifecycle events clear it; a disabled token keeps it', () => {
    assert.equal(nextGasPrice(undefined, stale('ETH', '2025-01-01T00:01:00.000Z')), undefined);
    const price = nextGasPrice(undefined, updated('ETH', '30000000000'));
    assert.equal(nextGasPrice(price, { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } }), price);
    const clearing: DomainEvent[] = [
      { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: [] } },
      { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } },
      { type: 'CoinActivated', data: activation('ETH') },
      { type: 'ActivationInterrupted', data: { ticker: 'ETH', attempt: 1, sessionId: 's' } },
      { type: 'SessionStarted', data: { sessionId: 's', version: '0', derivationMethod: 'Iguana' } },
    ];
    for (const event of clearing) assert.equal(nextGasPrice(price, event), undefined, event.type);
  });
});

describe('GasPricesProjection', () => {
  test('per coin stream; a new session forgets every price; redelivery changes nothing', () => {
    const s = new EventScript('n1');
    s.session();
    s.coin('ETH', updated('ETH', '75000000000'));
    s.coin('MATIC', updated('MATIC', '30000000000'));
    const late = s.coin('ETH', stale('ETH', '2025-01-01T00:01:00.000Z'));
    const p = new GasPricesProjection();
    for (const e of s.events) p.apply(e);
    assert.equal(p.get('ETH')?.stale, true);
    assert.equal(p.get('MATIC')?.gasPriceGwei, '30');
    p.apply(s.coin('ETH', updated('ETH', '80000000000')));
    p.apply(late); // an old event delivered again
    assert.deepEqual(p.get('ETH'), { gasPriceWei: '80000000000', gasPriceGwei: '80', updatedAt: '2025-01-01T00:00:00.000Z', stale: false });
    p.apply(s.session());
    assert.equal(p.get('ETH'), undefined);
    assert.equal(p.get('MATIC'), undefined);
  });
});
