/**
 * The UTXO family's withdraw capability as actors/ call it: an active coin's view (its Electrum
 * backend), an order in domain terms, the key provider's signer. Answers are the spec's errors
 * (type, HTTP status, `error_data`), the fee details the seam's union; signed transactions pass
 * litecoind's `testmempoolaccept`; an HD account sends from a listed address (`from`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crypto as btcCrypto } from 'bitcoinjs-lib';
import { startLitecoind, type Litecoind } from '../../../devnet/litecoind/litecoind.ts';
import { p2pkhAddress } from '../../../devnet/litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../../../devnet/electrum/electrumServer.ts';
import { TEST_PASSPHRASE } from '../../../devnet/testing/stack.ts';
import { systemClock } from '../../../kernel/clock.ts';
import { ActivationError, ErrorType } from '../../../spec/errors.ts';
import type { FeePolicy, WithdrawOrder } from '../../../spec/withdraw.ts';
import type { ActiveCoinView, WithdrawSigner } from '../../../actors/ports/withdraw.ts';
import type { AddressPath, KeyProvider } from '../../../actors/ports/keyProvider.ts';
import { createHdKeyProvider, createIguanaKeyProvider } from '../../keys/index.ts';
import { ElectrumPool } from '../../electrum/electrumPool.ts';
import { electrumBackendOver } from '../electrumBackend.ts';
import { utxoWallet, type UtxoAddressRule } from '../utxoAddress.ts';
import type { ElectrumPlanParams } from '../utxoPlan.ts';
import { utxoWithdrawCapability } from './utxoWithdrawCapability.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ENTRY = { coin: 'LTCR', pubtype: 111, p2shtype: 58, decimals: 8, txfee: 2000, dust: 5460, derivation_path: "m/44'/2'", protocol: { type: 'UTXO' } };
const RULE = { format: 'standard', pubtype: 111, taddr: 0, checksum: 'DoubleSha256' } as UtxoAddressRule;

let node: Litecoind;
let server: ElectrumServer;
const pools: ElectrumPool[] = [];
const capability = utxoWithdrawCapability({ clock: systemClock });
const signal = () => new AbortController().signal;

before(async () => {
  node = await startLitecoind();
  server = await startElectrumServer({ litecoind: node });
});
after(async () => {
  pools.forEach((p) => p.close());
  await server?.stop();
  await node?.stop();
});

/** An active coin whose key is `keys`' at `enabled`, and (HD) the other listed addresses' keys. */
async function activeCoin(keys: KeyProvider, listed: AddressPath[] = []): Promise<{ view: ActiveCoinView; address: (path?: AddressPath) => Promise<string> }> {
  const pool = new ElectrumPool({ servers: [{ url: server.tcp!, protocol: 'TCP' }], minConnected: 1, maxConnected: 1, clock: systemClock, pingIntervalMs: 0 });
  pools.push(pool);
  const params = { entry: ENTRY, addressRule: RULE, decimals: 8, requiredConfirmations: 1, requiresNotarization: false, matureConfirmations: 100, mode: 'electrum', servers: [], minConnected: 1, maxConnected: 1 } as unknown as ElectrumPlanParams;
  const key = await keys.publicKey(ENTRY);
  const others = await Promise.all(listed.map((path) => keys.publicKey(ENTRY, path)));
  const wallet = utxoWallet(key.compressed, RULE);
  const backend = {
    ...electrumBackendOver(pool, 'LTCR', params, wallet, key.compressed),
    senderKey: (address: string) => others.map((k) => k.compressed).find((k) => utxoWallet(k, RULE).address === address),
  };
  const platform = { ticker: 'LTCR', family: 'utxo', address: wallet.address, pubkey: key.compressedHex, derivationMethod: keys.derivationMethod, currentBlock: 0, decimals: 8, tokens: [], connection: backend };
  return {
    view: { ticker: 'LTCR', platform: platform as never, decimals: 8, entry: ENTRY },
    address: async (path) => utxoWallet((await keys.publicKey(ENTRY, path)).compressed, RULE).address,
  };
}

function keySigner(keys: KeyProvider, path?: AddressPath): WithdrawSigner {
  return { kind: 'key', signDigest: (digest) => keys.signDigest!(ENTRY, path, digest) };
}

const order = (sender: WithdrawOrder['sender'], to: string, amount: bigint | 'max', fee: FeePolicy = { kind: 'Auto' }): WithdrawOrder => ({ coin: 'LTCR', to, amount, fee, sender });

async function accepted(txHex: string): Promise<void> {
  const [verdict] = await node.rpc<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[txHex]]);
  assert.equal(verdict!.allowed, true, verdict!['reject-reason']);
}

describe('utxoWithdrawCapability with an Iguana key', () => {
  test('prepare: a transaction litecoind accepts, amounts of the reference (total = inputs, balance change = change − inputs) and Utxo fee details', async () => {
    const keys = createIguanaKeyProvider(TEST_PASSPHRASE);
    const { view } = await activeCoin(keys);
    await node.fund(view.platform.address, 70_000_000n, 1);
    const to = p2pkhAddress(randomBytes(20));
    const prepared = await capability.prepare(view, order({ address: view.platform.address }, to, 25_000_000n), keySigner(keys), signal());
    await accepted(prepared.txHex);
    const fee = (2000n * 226n) / 1000n;
    assert.deepEqual(prepared.feeDetails, { type: 'Utxo', coin: 'LTCR', decimals: 8, amount: fee });
    assert.equal(prepared.totalAmount, 70_000_000n);
    assert.equal(prepared.spentByMe, 70_000_000n);
    assert.equal(prepared.receivedByMe, 70_000_000n - 25_000_000n - fee);
    assert.equal(prepared.myBalanceChange, -(25_000_000n + fee));
    assert.deepEqual([prepared.from, prepared.to], [[view.platform.address], [to]]);
    const sent = await capability.broadcast(view, prepared.txHex, signal());
    assert.deepEqual(sent, { txHash: prepared.txHash, node: server.tcp! });
  });

  test('refusals are the spec errors with their payloads and statuses, and nothing is signed', async () => {
    const keys = createIguanaKeyProvider(`${TEST_PASSPHRASE} refusals`);
    const { view } = await activeCoin(keys);
    let signed = 0;
    const signer: WithdrawSigner = { kind: 'key', signDigest: (d) => (signed++, keys.signDigest!(ENTRY, undefined, d)) };
    const refused = async (o: WithdrawOrder) => {
      const error = await capability.prepare(view, o, signer, signal()).then(() => assert.fail('expected a refusal'), (e: unknown) => e);
      assert.ok(error instanceof ActivationError, String(error));
      return { type: error.errorType, status: error.httpStatus, data: error.data };
    };
    const sender = { address: view.platform.address };
    const to = p2pkhAddress(randomBytes(20));
    assert.deepEqual(await refused(order(sender, to, 10_000n)), { type: ErrorType.NotSufficientBalance, status: 400, data: { coin: 'LTCR', available: '0', required: '0.0001' } });
    await node.fund(view.platform.address, 1_000_000n, 1);
    assert.deepEqual(await refused(order(sender, to, 1_000_000n)), { type: ErrorType.NotSufficientBalance, status: 400, data: { coin: 'LTCR', available: '0.01', required: '0.01000384' } });
    assert.deepEqual(await refused(order(sender, to, 5000n)), { type: ErrorType.AmountTooLow, status: 400, data: { amount: '0.00005', threshold: '0.0000546' } });
    const mainnet = 'LTC1qnotanaddress';
    assert.equal((await refused(order(sender, mainnet, 10_000n))).type, ErrorType.InvalidAddress);
    assert.deepEqual(await refused(order(sender, to, 10_000n, { kind: 'EthGas', gasPriceWei: 1n, gas: 21_000n })), {
      type: ErrorType.InvalidFeePolicy,
      status: 400,
      data: "Expected 'UtxoFixed' or 'UtxoPerKbyte' fee types, found EthGas",
    });
    assert.equal(signed, 0);
  });
});

describe('utxoWithdrawCapability with an HD account', () => {
  test('from a listed address (not the enabled one): its key signs, change returns to it, litecoind accepts', async () => {
    const keys = createHdKeyProvider(MNEMONIC);
    const second: AddressPath = { accountId: 0, chain: 'External', addressId: 3 };
    const { view, address } = await activeCoin(keys, [second]);
    const from = await address(second);
    await node.fund(from, 40_000_000n, 1);
    const to = p2pkhAddress(randomBytes(20));
    const prepared = await capability.prepare(view, order({ address: from, derivationPath: "m/44'/2'/0'/0/3", addressPath: second }, to, 10_000_000n, { kind: 'UtxoPerKbyte', amount: 3000n }), keySigner(keys, second), signal());
    await accepted(prepared.txHex);
    assert.deepEqual(prepared.from, [from]);
    assert.equal(prepared.feeDetails.type === 'Utxo' && prepared.feeDetails.amount, (3000n * 226n) / 1000n);
    const hash = Buffer.from(btcCrypto.hash160(Buffer.from((await keys.publicKey(ENTRY, second)).compressed))).toString('hex');
    assert.ok(prepared.txHex.includes(`76a914${hash}88ac`), 'change back to the sender');
  });

  test('an address the account did not list has no key: refused before signing', async () => {
    const keys = createHdKeyProvider(MNEMONIC);
    const { view, address } = await activeCoin(keys);
    const unlisted = await address({ accountId: 0, chain: 'External', addressId: 9 });
    const error = await capability.prepare(view, order({ address: unlisted }, p2pkhAddress(randomBytes(20)), 10_000n), keySigner(keys), signal()).then(() => assert.fail('expected a refusal'), (e: unknown) => e);
    assert.ok(error instanceof ActivationError);
    assert.equal(error.errorType, ErrorType.InternalError);
  });
});
