import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { BusyNodes, busyOf, isRateLimitError, retryAfterMs } from './busyNodes.ts';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);

test('Retry-After: delay-seconds and HTTP dates (RFC 9110 §10.2.3), anything else is absent', () => {
  assert.equal(retryAfterMs('120', NOW), 120_000);
  assert.equal(retryAfterMs(' 0 ', NOW), 0);
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 12:00:30 GMT', NOW), 30_000);
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 11:00:00 GMT', NOW), 0, 'a past date means now');
  for (const bad of [undefined, '', '-5', '1.5', 'soon', '12abc']) assert.equal(retryAfterMs(bad, NOW), undefined, String(bad));
});

test('a busy node is left alone for its Retry-After on the clock, then forgotten', () => {
  const clock = new ManualClock(NOW);
  const book = new BusyNodes(clock);
  const url = 'https://node.example/v1/secret-key';
  assert.equal(book.markBusy(url, '3'), 3_000);
  assert.equal(book.busyFor(url), 3_000);
  assert.equal(book.busyFor('https://node.example/v1/other-key'), 0, 'the whole URL is the key');
  clock.advance(2_999);
  assert.equal(book.busyFor(url), 1);
  clock.advance(1);
  assert.equal(book.busyFor(url), 0);
});

test('without a usable Retry-After the default applies; a far one is capped', () => {
  const clock = new ManualClock(NOW);
  assert.equal(new BusyNodes(clock).markBusy('http://a', undefined), 10_000);
  assert.equal(new BusyNodes(clock).markBusy('http://a', 'later'), 10_000);
  assert.equal(new BusyNodes(clock).markBusy('http://a', '86400'), 600_000);
  assert.equal(new BusyNodes(clock, { defaultRetryAfterMs: 1_000, maxRetryAfterMs: 5_000 }).markBusy('http://a', '60'), 5_000);
});

test('busyOf finds the busy answer through wrapping causes; rate-limit errors by code or message, never a revert', () => {
  const inner = Object.assign(new Error('HTTP 429'), { busy: { retryAfter: '5' } });
  assert.deepEqual(busyOf(new Error('eth_call: HTTP 429', { cause: inner })), { retryAfter: '5' });
  assert.equal(busyOf(new Error('refused')), undefined);
  assert.equal(isRateLimitError({ code: -32005, message: 'limit exceeded' }), true);
  assert.equal(isRateLimitError({ code: -32000, message: 'Your app has exceeded its compute units per second capacity (rate limit)' }), true);
  assert.equal(isRateLimitError({ code: 429, message: 'Too Many Requests' }), true);
  assert.equal(isRateLimitError({ code: 3, message: 'execution reverted: rate limit' }), false);
  assert.equal(isRateLimitError({ code: -32601, message: 'method not found' }), false);
});
