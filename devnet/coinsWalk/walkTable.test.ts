import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatWalkTable, walkTableDiff } from './walkTable.ts';
import type { WalkRow } from './coinsWalk.ts';

const row = (coin: string, activation = 'ok balance=1 unspendable=0'): WalkRow => ({
  coin,
  protocol: 'ETH',
  method: 'enable_eth_with_tokens',
  plan: 'accepted',
  address: '0xabc',
  activation,
});

test('a table is two comment lines, the header, then one tab-separated line per row', () => {
  const lines = formatWalkTable([row('A'), row('B')]).split('\n');
  assert.ok(lines[0]!.startsWith('# ') && lines[1]!.startsWith('# '));
  assert.equal(lines[2], 'coin\tprotocol\tmethod\tplan\taddress\tactivation');
  assert.equal(lines[3], 'A\tETH\tenable_eth_with_tokens\taccepted\t0xabc\tok balance=1 unspendable=0');
  assert.deepEqual(lines.slice(5), ['']);
});

test('the diff names each changed, added and removed line by coin and method', () => {
  const before = formatWalkTable([row('A'), row('B'), row('C')]);
  assert.deepEqual(walkTableDiff(before, before), []);
  const after = formatWalkTable([row('A'), row('B', 'failed HTTP 502 Transport: down'), row('D')]);
  assert.deepEqual(walkTableDiff(before, after), [
    '- B\tETH\tenable_eth_with_tokens\taccepted\t0xabc\tok balance=1 unspendable=0',
    '+ B\tETH\tenable_eth_with_tokens\taccepted\t0xabc\tfailed HTTP 502 Transport: down',
    '- C\tETH\tenable_eth_with_tokens\taccepted\t0xabc\tok balance=1 unspendable=0',
    '+ D\tETH\tenable_eth_with_tokens\taccepted\t0xabc\tok balance=1 unspendable=0',
  ]);
  assert.equal(walkTableDiff('', after).length, 4, 'against a missing table every line is new, the header too');
});
