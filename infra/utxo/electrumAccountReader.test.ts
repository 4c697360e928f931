import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ElectrumCall } from '../electrum/electrumConnection.ts';
import { CoinbaseMemo, readElectrumBalance } from './electrumAccountReader.ts';
import type { UtxoWallet } from './utxoAddress.ts';

const TX = 'ab'.repeat(32);
const wallet: UtxoWallet = { address: 'x', scripts: [new Uint8Array([0x51])] } as unknown as UtxoWallet;

/** A server whose one unspent output of 5000 is at `height` (0: the mempool), at tip 100; records the methods asked. */
function server(height: () => number) {
  const asked: string[] = [];
  const batch = async (calls: readonly ElectrumCall[]) => {
    asked.push(...calls.map((c) => c.method));
    return calls.map((c) => {
      if (c.method === 'blockchain.headers.subscribe') return { height: 100 };
      if (c.method === 'blockchain.scripthash.get_balance') return height() === 0 ? { confirmed: 0, unconfirmed: 5000 } : { confirmed: 5000, unconfirmed: 0 };
      if (c.method === 'blockchain.scripthash.listunspent') return [{ tx_hash: TX, height: height(), value: 5000 }];
      return '01000000000100000000'; // transaction.get: not a coinbase
    });
  };
  return { asked, batch };
}

test('Given a transfer first seen in the mempool, When it confirms, Then the read asks no transaction.get (a coinbase never enters a mempool)', async () => {
  let height = 0;
  const s = server(() => height);
  const memo = new CoinbaseMemo();
  assert.deepEqual(await readElectrumBalance(s.batch, wallet, 100, memo), { currentBlock: 100, spendable: 5000n, unspendable: 0n, txCount: 0 });
  height = 99;
  assert.deepEqual(await readElectrumBalance(s.batch, wallet, 100, memo), { currentBlock: 100, spendable: 5000n, unspendable: 0n, txCount: 0 });
  assert.equal(s.asked.filter((m) => m === 'blockchain.transaction.get').length, 0);
});

test('Given a young output never seen, When read twice with one memo, Then its transaction is fetched once; without a memo, every time', async () => {
  const s = server(() => 99);
  const memo = new CoinbaseMemo();
  await readElectrumBalance(s.batch, wallet, 100, memo);
  await readElectrumBalance(s.batch, wallet, 100, memo);
  assert.equal(s.asked.filter((m) => m === 'blockchain.transaction.get').length, 1);
  await readElectrumBalance(s.batch, wallet, 100);
  assert.equal(s.asked.filter((m) => m === 'blockchain.transaction.get').length, 2);
});

test('Given a memo at its limit, When another transaction is learnt, Then the oldest is forgotten', () => {
  const memo = new CoinbaseMemo(2);
  memo.set('a', false);
  memo.set('b', true);
  memo.set('c', false);
  assert.deepEqual([memo.get('a'), memo.get('b'), memo.get('c')], [undefined, true, false]);
});

test('Given the coinbase of a block is known, When an output of that block is read, Then no transaction.get: it is that coinbase or not one', async () => {
  const s = server(() => 99);
  const memo = new CoinbaseMemo();
  memo.setBlockCoinbase(99, 'cd'.repeat(32));
  assert.deepEqual(await readElectrumBalance(s.batch, wallet, 100, memo), { currentBlock: 100, spendable: 5000n, unspendable: 0n, txCount: 0 });
  memo.setBlockCoinbase(99, TX);
  assert.deepEqual(await readElectrumBalance(s.batch, wallet, 100, memo), { currentBlock: 100, spendable: 0n, unspendable: 5000n, txCount: 0 });
  assert.equal(s.asked.filter((m) => m === 'blockchain.transaction.get').length, 0);
});
