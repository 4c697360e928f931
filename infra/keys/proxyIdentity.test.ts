import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { HDNodeWallet, getBytes } from 'ethers';
import { createHdKeyProvider } from './hd.ts';
import { createIguanaKeyProvider } from './iguana.ts';
import { createProxyIdentity, ed25519Identity } from './proxyIdentity.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** SPKI DER header of an Ed25519 public key: the 32 key bytes follow. */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** Verifies an ed25519 signature with the raw key taken from the protobuf encoding. */
function verifies(encoded: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, encoded.subarray(4)]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

describe('gateway-proxy identity (ed25519 from the wallet\'s internal key)', () => {
  it('has the peer id of the reference\'s vector for the seed [123; 32]', () => {
    // The reference's proxy_signature test: ed25519 secret [123u8; 32] → this peer id.
    const identity = ed25519Identity(new Uint8Array(32).fill(123));
    assert.equal(identity.peerId, '12D3KooWJPtxrHVDPoETNfPJY4WWVzX7Ti4WPemtXDgb5qmFrDiv');
    assert.deepEqual([...identity.publicKeyEncoded.subarray(0, 4)], [0x08, 0x01, 0x12, 0x20]);
  });

  it('gives the peer ids the reference\'s seed nodes get from their Iguana passphrases', () => {
    // The reference's connection healthcheck test: seed nodes "dummy-value-bob" and
    // "dummy-value-alice" (P2P key = sha256 of the internal key) have these peer ids.
    assert.equal(createIguanaKeyProvider('dummy-value-bob').proxyIdentity!().peerId, '12D3KooWEtuv7kmgGCC7oAQ31hB7AR5KkhT3eEWB2bP2roo3M7rY');
    assert.equal(createIguanaKeyProvider('dummy-value-alice').proxyIdentity!().peerId, '12D3KooWHnoKd2Lr7BoxHCCeBhcnfAZsdiCdojbEMLE7DDSbMo1g');
  });

  it('signs with ed25519 so that the public key verifies, and a changed message does not', () => {
    const identity = createIguanaKeyProvider('bob passphrase').proxyIdentity!();
    const message = new TextEncoder().encode('Encoded Message for KDP\n…');
    const signature = identity.sign(message);
    assert.equal(signature.length, 64);
    assert.ok(verifies(identity.publicKeyEncoded, message, signature));
    assert.ok(!verifies(identity.publicKeyEncoded, new TextEncoder().encode('another message'), signature));
  });

  it('HD: derives from the key at m/44\'/141\'/2147483647/0/0, once', () => {
    const provider = createHdKeyProvider(MNEMONIC);
    // The internal key computed by ethers' own HD wallet, independently of the provider's cache.
    const internal = getBytes(HDNodeWallet.fromPhrase(MNEMONIC, '', "m/44'/141'/2147483647/0/0").privateKey);
    assert.equal(provider.proxyIdentity!().peerId, createProxyIdentity(internal).peerId);
    assert.equal(provider.proxyIdentity!(), provider.proxyIdentity!());
    assert.notEqual(provider.proxyIdentity!().peerId, createIguanaKeyProvider(MNEMONIC).proxyIdentity!().peerId);
  });

  it('prints only its peer id', () => {
    const identity = createIguanaKeyProvider('bob passphrase').proxyIdentity!();
    const printed = [JSON.stringify(identity), String(identity), inspect(identity, { depth: 5, showHidden: true })].join('\n');
    assert.match(printed, new RegExp(identity.peerId));
    assert.doesNotMatch(printed, /sign|key|[0-9a-f]{64}/i);
  });
});

