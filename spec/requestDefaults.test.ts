import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_DEFAULTS, firstWithoutEffect, isDefault, withoutEffectMessage } from './requestDefaults.ts';
import { enableEthWithTokensParams } from './enableEthWithTokens.ts';

describe('fields without effect: the one rule', () => {
  test('left out or at the documented default: accepted', () => {
    const fields = [
      { field: 'gas_station_decimals', path: 'params.gas_station_decimals', value: 8 },
      { field: 'gas_station_policy', path: 'params.gas_station_policy', value: { policy: 'MeanAverageFast' } },
      { field: 'tx_history', path: 'params.tx_history', value: undefined },
    ];
    assert.equal(firstWithoutEffect(fields), undefined);
    assert.equal(withoutEffectMessage(fields, 'given without params.gas_station_url'), undefined);
  });

  test('any other value: refused, the first offending field named with its value and its default', () => {
    const fields = [
      { field: 'gas_station_decimals', path: 'params.gas_station_decimals', value: 8 },
      { field: 'gas_station_policy', path: 'params.gas_station_policy', value: { policy: 'Average' } },
      { field: 'tx_history', path: 'params.tx_history', value: true },
    ];
    assert.equal(firstWithoutEffect(fields)?.field, 'gas_station_policy');
    assert.equal(
      withoutEffectMessage(fields, 'given without params.gas_station_url', "add the station's URL"),
      'params.gas_station_policy {"policy":"Average"}: given without params.gas_station_url, so it would have no effect; leave it out (or give its default, {"policy":"MeanAverageFast"}), or add the station\'s URL',
    );
  });

  test('a field without a documented default: only absence and the caller\'s no-op values pass', () => {
    const field = (value: unknown) => [{ field: 'min_addresses_number', path: 'min_addresses_number', value, alsoNoOp: (v: unknown) => (v as number) <= 1 }];
    assert.equal(withoutEffectMessage(field(1), 'one address'), undefined);
    assert.equal(withoutEffectMessage(field(2), 'one address'), 'min_addresses_number 2: one address, so it would have no effect; leave it out');
    assert.equal(isDefault('min_addresses_number', undefined), false, 'no default: undefined is not one');
  });

  test('defaults compare by value, not by shape of the request: a number is not a string', () => {
    assert.equal(isDefault('gas_station_decimals', 8), true);
    assert.equal(isDefault('gas_station_decimals', '8'), false);
    assert.equal(isDefault('scan_policy', 'scan_if_new_wallet'), true);
    assert.equal(isDefault('__proto__', {}), false);
  });

  test('the schemas fill in the same defaults', () => {
    const decoded = enableEthWithTokensParams.decode({ ticker: 'ETH', nodes: [], erc20_tokens_requests: [] });
    assert.ok(decoded.ok);
    assert.equal(decoded.value.get_balances, REQUEST_DEFAULTS.get_balances);
    assert.equal(decoded.value.tx_history, REQUEST_DEFAULTS.tx_history);
    assert.equal(decoded.value.rpc_mode, REQUEST_DEFAULTS.rpc_mode);
  });
});
