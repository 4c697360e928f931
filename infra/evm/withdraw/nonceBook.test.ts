import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NonceBook } from './nonceBook.ts';

const A = '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d';

test('Given nothing broadcast, When the next nonce is asked, Then it is the node pending count (a signed preview reserves nothing)', () => {
  const book = new NonceBook();
  assert.equal(book.next(1, A, 5n, 5n), 5n);
  assert.equal(book.next(1, A, 5n, 5n), 5n);
});

test('Given a broadcast the node does not show yet, When the next nonce is asked, Then it is past the broadcast one until the node mines it', () => {
  const book = new NonceBook();
  book.record(1, A, 5n, 'aa');
  assert.equal(book.next(1, A.toLowerCase(), 5n, 5n), 6n);
  assert.equal(book.next(1, A, 6n, 5n), 6n);
  assert.equal(book.next(1, A, 5n, 6n), 5n, 'mined: the entry is dropped and the node is trusted again');
  assert.equal(book.next(2, A, 0n, 0n), 0n, 'another chain is another sender');
});

test('Given a broadcast nonce, When another transaction with that nonce is checked, Then it is named; the same transaction is not', () => {
  const book = new NonceBook();
  book.record(1, A, 7n, 'aa');
  assert.equal(book.usedBy(1, A, 7n, 'bb'), 'aa');
  assert.equal(book.usedBy(1, A, 7n, 'aa'), undefined);
  assert.equal(book.usedBy(1, A, 8n, 'bb'), undefined);
});
