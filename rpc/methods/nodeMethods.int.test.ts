/**
 * What the reference's client sends at login before any coin (docs/compatibility.md §19), with its
 * exact bodies: no `id`, `"params": null`, legacy `version`; and the shutdown-signal stream.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_PASSWORD, startStack } from '../../devnet/testing/stack.ts';
import { SseClient } from '../../devnet/testing/sseClient.ts';
import { getWalletNamesResult } from '../../spec/nodeMethods.ts';

const bearer = { authorization: `Bearer ${TEST_PASSWORD}` };

describe('login methods of the reference client', () => {
  test('legacy version: {result, datetime}; the v2 form is NoSuchMethod, as in the reference', async () => {
    const s = await startStack();
    try {
      const { status, body } = await s.post({ method: 'version', userpass: TEST_PASSWORD });
      assert.equal(status, 200);
      assert.deepEqual(Object.keys(body), ['result', 'datetime']);
      assert.equal(body.result, '0.1.0');
      assert.ok(!Number.isNaN(Date.parse(body.datetime)) && new Date(body.datetime).toISOString() === body.datetime, body.datetime);
      const v2 = await s.post({ method: 'version', mmrpc: '2.0', userpass: TEST_PASSWORD, params: null });
      assert.deepEqual([v2.status, v2.body.error_type], [400, 'NoSuchMethod']);
      // Without the password: refused in the legacy form (no mmrpc), as every legacy method.
      const anonymous = await s.post({ method: 'version' });
      assert.equal(anonymous.status, 500);
      assert.deepEqual(Object.keys(anonymous.body), ['error']);
    } finally {
      await s.stop();
    }
  });

  test('get_wallet_names with "params": null and no id: no wallet without wallet_name, the named one with it', async () => {
    const plain = await startStack();
    try {
      const { status, body } = await plain.post({ method: 'get_wallet_names', mmrpc: '2.0', params: null, userpass: TEST_PASSWORD });
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body, { mmrpc: '2.0', result: { wallet_names: [], activated_wallet: null }, id: null });
    } finally {
      await plain.stop();
    }
    const named = await startStack({ config: { wallet_name: 'My Wallet' } });
    try {
      const { body } = await named.post({ method: 'get_wallet_names', mmrpc: '2.0', params: null, userpass: TEST_PASSWORD });
      assert.ok(getWalletNamesResult.check(body.result));
      assert.deepEqual(body.result, { wallet_names: ['My Wallet'], activated_wallet: 'My Wallet' });
    } finally {
      await named.stop();
    }
  });

  test('stream::shutdown_signal::enable: UnknownClient until /event-stream is open, then SHUTDOWN_SIGNAL, which a signal stop delivers', async () => {
    const s = await startStack();
    let client: SseClient | undefined;
    let silent: SseClient | undefined;
    try {
      const enable = () => s.post({ method: 'stream::shutdown_signal::enable', mmrpc: '2.0', params: { client_id: 0 }, userpass: TEST_PASSWORD });
      const early = await enable();
      assert.equal(early.status, 400);
      assert.equal(early.body.error_type, 'EnableError');
      assert.equal(early.body.error_data, 'UnknownClient');
      client = await SseClient.connect(`${s.service.url}/event-stream?id=0`, { headers: bearer });
      await client.waitFor((f) => f.event === 'ready');
      silent = await SseClient.connect(`${s.service.url}/event-stream?id=1`, { headers: bearer });
      await silent.waitFor((f) => f.event === 'ready');
      const ok = await enable();
      assert.deepEqual([ok.status, ok.body], [200, { mmrpc: '2.0', result: { streamer_id: 'SHUTDOWN_SIGNAL' }, id: null }]);
      const again = await enable();
      assert.equal(again.body.error_data, 'ClientAlreadyListening');
      // Another client id, not connected, is unknown; params null means client 0.
      assert.equal((await s.v2('stream::shutdown_signal::enable', { client_id: 3 })).body.error_data, 'UnknownClient');
      assert.equal((await s.v2('stream::shutdown_signal::enable', null)).body.error_data, 'ClientAlreadyListening');
    } finally {
      await s.service.stop('SIGTERM');
      await s.devnet.stop();
    }
    const signal = await client.waitFor((f) => f.event === undefined && JSON.parse(f.data)._type === 'SHUTDOWN_SIGNAL');
    assert.equal(signal.id, undefined);
    assert.deepEqual(JSON.parse(signal.data), { _type: 'SHUTDOWN_SIGNAL', message: 'SIGTERM' });
    // Only the client that enabled it hears it; both streams are then ended.
    await Promise.all([client.ended, silent!.ended]);
    assert.deepEqual(silent!.frames.filter((f) => f.data.includes('SHUTDOWN_SIGNAL')), []);
  });
});
