import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refusal } from '../../devnet/proxies/gatewayProxy.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { ed25519Identity } from '../keys/proxyIdentity.ts';
import { PROXY_SIGN_LIFETIME_S, proxySigner } from './proxySign.ts';

const identity = ed25519Identity(new Uint8Array(32).fill(123));
const NOW_MS = 1_700_000_000_500;

describe('ProxySign (the X-Auth-Payload of a gateway-proxy request)', () => {
  it('has the reference\'s JSON shape and field order, byte arrays as numbers, expiry 15 s ahead on the injected clock', () => {
    const signed = proxySigner(identity, new ManualClock(NOW_MS)).sign('http://127.0.0.1:8545', 123);
    assert.deepEqual(Object.keys(signed), ['signature_bytes', 'address', 'raw_message']);
    assert.deepEqual(Object.keys(signed.raw_message), ['uri', 'body_size', 'public_key_encoded', 'expires_at']);
    assert.equal(signed.address, '12D3KooWJPtxrHVDPoETNfPJY4WWVzX7Ti4WPemtXDgb5qmFrDiv');
    assert.equal(signed.raw_message.uri, 'http://127.0.0.1:8545/', 'an empty path is written "/", as the reference\'s Uri does');
    assert.equal(signed.raw_message.body_size, 123);
    assert.equal(signed.raw_message.expires_at, 1_700_000_000 + PROXY_SIGN_LIFETIME_S);
    assert.equal(signed.signature_bytes.length, 64);
    assert.deepEqual(signed.raw_message.public_key_encoded.slice(0, 4), [8, 1, 18, 32]);
  });

  it('verifies as a gateway proxy checks it, for that URI and size only, until it expires', () => {
    const signed = proxySigner(identity, new ManualClock(NOW_MS)).sign('wss://node.example/ws?key=K', 77);
    const uri = 'wss://node.example/ws?key=K';
    const now = Math.floor(NOW_MS / 1000);
    assert.equal(refusal(signed, uri, 77, now), undefined);
    assert.equal(refusal(signed, uri, 78, now), 'signed for another request');
    assert.equal(refusal(signed, 'wss://node.example/other', 77, now), 'signed for another request');
    assert.equal(refusal(signed, uri, 77, now + PROXY_SIGN_LIFETIME_S), 'expired');
    assert.equal(refusal(signed, uri, 77, now - 1), 'valid for too long');
    const tampered = { ...signed, raw_message: { ...signed.raw_message, body_size: 78 } };
    assert.equal(refusal(tampered, uri, 78, now), 'bad signature');
  });
});
