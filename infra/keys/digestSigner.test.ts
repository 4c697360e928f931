import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Signature, SigningKey, keccak256, toUtf8Bytes, getBytes, computeAddress } from 'ethers';
import { createHdKeyProvider } from './hd.ts';
import { createIguanaKeyProvider } from './iguana.ts';
import { evmAddress } from './addresses.ts';

const digest = getBytes(keccak256(toUtf8Bytes('withdraw')));
const recovered = (sig: { r: string; s: string; recovery: 0 | 1 }) =>
  computeAddress(SigningKey.recoverPublicKey(digest, Signature.from({ r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: sig.recovery })));

test('Given an Iguana key, When it signs a digest, Then the signature recovers its own address and refuses a path', async () => {
  const keys = createIguanaKeyProvider('digest signer test passphrase');
  const coin = { coin: 'ETH' };
  const sig = await keys.signDigest!(coin, undefined, digest);
  assert.equal(recovered(sig), evmAddress(await keys.publicKey(coin)));
  await assert.rejects(keys.signDigest!(coin, { accountId: 0, chain: 'External', addressId: 1 }, digest), /Iguana/);
});

test('Given an HD mnemonic, When it signs at an address path, Then the signature recovers that address', async () => {
  const keys = createHdKeyProvider('test test test test test test test test test test test junk');
  const coin = { coin: 'ETH', derivation_path: "m/44'/60'" };
  const path = { accountId: 0, chain: 'External' as const, addressId: 3 };
  const sig = await keys.signDigest!(coin, path, digest);
  assert.equal(recovered(sig), evmAddress(await keys.publicKey(coin, path)));
  assert.notEqual(recovered(sig), evmAddress(await keys.publicKey(coin)));
});
