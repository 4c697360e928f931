import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeToken, encodeToken, eventSubject, parseEventSubject, rpcSubject, statusKey } from './subjects.ts';

test('ordinary tickers stay readable; unsafe characters are escaped reversibly', () => {
  assert.equal(encodeToken('USDT-ERC20'), 'USDT-ERC20');
  assert.equal(encodeToken('A.B*C>D E\tF='), 'A=2EB=2AC=3ED=20E=09F=3D');
  for (const ticker of ['ETH', 'A.B', '*', '>', 'x y', '100%', 'ÄÖ.é', '', '=2E', 'TAB\there', 'a+b@c/d']) {
    const token = encodeToken(ticker);
    assert.doesNotMatch(token, /[.*>\s]/, ticker);
    assert.match(token, /^[-/_=A-Za-z0-9]+$/, `${ticker}: valid in a KV key`);
    assert.equal(decodeToken(token), ticker);
  }
});

test('event subjects, status keys and the rpc subject follow the contract and parse back', () => {
  assert.equal(eventSubject('node-1', 'coin.ETH'), 'activation.events.node-1.coin.ETH');
  assert.equal(eventSubject('node-1', 'task.42'), 'activation.events.node-1.task.42');
  assert.equal(eventSubject('n', 'coin.W.E*T'), 'activation.events.n.coin.W=2EE=2AT');
  assert.deepEqual(parseEventSubject('activation.events.n.coin.W=2EE=2AT'), { nodeId: 'n', stream: 'coin.W.E*T' });
  assert.deepEqual(parseEventSubject(eventSubject('n', 'node')), { nodeId: 'n', stream: 'node' });
  assert.equal(parseEventSubject('other.subject'), undefined);
  assert.equal(statusKey('node-1', 'coin.USDT-ERC20'), 'node-1.coin.USDT-ERC20');
  assert.equal(statusKey('node-1', 'task.7'), 'node-1.task.7');
  assert.equal(rpcSubject('node-1'), 'activation.rpc.node-1');
});
