import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedUrl, startSilentNode } from './faultyNodes.ts';

const CLIENT_TIMEOUT_MS = 200;

test('refusedUrl points at a loopback port that refuses fast', async () => {
  const url = await refusedUrl();
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const startedAt = performance.now();
  const error = await fetch(url, { method: 'POST', body: '{}' }).then(
    () => assert.fail('expected a refusal'),
    (e: Error & { cause?: { code?: string } }) => e,
  );
  assert.equal(error.cause?.code, 'ECONNREFUSED');
  assert.ok(performance.now() - startedAt < 1_000);
});

test('a silent node accepts the connection and never answers', async () => {
  const node = await startSilentNode();
  try {
    const startedAt = performance.now();
    await assert.rejects(
      fetch(node.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) }),
      (e: Error) => e.name === 'TimeoutError',
    );
    assert.ok(performance.now() - startedAt >= CLIENT_TIMEOUT_MS - 5);
    assert.equal(node.connections(), 1);
  } finally {
    await node.stop();
  }
});

test('stop destroys open connections, so hanging requests fail instead of waiting', async () => {
  const node = await startSilentNode();
  const pending = fetch(node.url, { method: 'POST', body: '{}' });
  while (node.connections() === 0) await new Promise((r) => setTimeout(r, 5));
  await node.stop();
  await assert.rejects(pending, TypeError);
  await node.stop(); // idempotent
  await assert.rejects(fetch(node.url, { signal: AbortSignal.timeout(1_000) }), (e: Error & { cause?: { code?: string } }) => e.cause?.code === 'ECONNREFUSED');
});
