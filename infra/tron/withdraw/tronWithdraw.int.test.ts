/**
 * TRON withdrawals end to end against the devnet TRON node: read, decide, sign, broadcast with
 * `broadcasthex`; the node (tronweb's protobuf, ethers' recovery) accepts them and executes them on
 * the backing chain, charging its own fee. Balances after = before − amount − fee, where the fee is
 * the one our estimate reported; tokens move by the amount.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAddress, Signature, SigningKey, Wallet } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from '../../../devnet/evm/evmDevnet.ts';
import { startTronNode, type TronNode } from '../../../devnet/tron/tronNode.ts';
import { startLatencyProxy } from '../../../devnet/proxies/latencyProxy.ts';
import { evmToTronBase58 } from '../../keys/tronAddress.ts';
import { createTronHttp, type TronHttp } from '../tronHttp.ts';
import { readForWithdrawal } from './tronWithdrawReads.ts';
import { prepareTronWithdrawal, type TronWithdrawRequest } from './tronWithdraw.ts';
import { signTronTransaction, type TronDigestSigner } from './tronSign.ts';
import { trc20Transfer } from './tronTransfer.ts';
import { taposBlock } from './tronNodeAnswers.ts';

const SENDER = new Wallet('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');
const ACTIVATED = '0x00000000000000000000000000000000000b0b00';
const FRESH = '0x00000000000000000000000000000000000f4e55';
const SENDER_SUN = 50_000_000n;
const TOKEN_UNITS = 9_000_000n;
const sign: TronDigestSigner = async (digest) => Buffer.from(SENDER.signingKey.sign(digest).serialized.slice(2), 'hex');

describe('TRON withdraw on the devnet node', () => {
  let evm: EvmDevnet;
  let node: TronNode;
  let http: TronHttp;
  let token: string;
  const signal = new AbortController().signal;
  const balance = async (address: string) => BigInt((await evm.request('eth_getBalance', [address, 'latest'])) as string);
  const tokenBalance = async (address: string) =>
    BigInt((await evm.request('eth_call', [{ to: evm.tokens[0]!.address, data: `0x70a08231${address.slice(2).padStart(64, '0')}` }, 'latest'])) as string);
  const trxRequest = (over: Partial<TronWithdrawRequest>): TronWithdrawRequest => ({
    coin: { ticker: 'TRX', decimals: 6 },
    feeCoin: 'TRX',
    from: SENDER.address,
    to: evmToTronBase58(ACTIVATED),
    amount: 1_000_000n,
    feeKind: 'Auto',
    ...over,
  });
  const prepare = (request: TronWithdrawRequest) => prepareTronWithdrawal(request, (query) => readForWithdrawal(http, query, signal), sign);
  const broadcast = (txHex: string) => http.post('/wallet/broadcasthex', { transaction: txHex }, signal);

  before(async () => {
    evm = await startEvmDevnet({
      fund: [{ address: SENDER.address, wei: SENDER_SUN }, { address: ACTIVATED, wei: 1n }],
      tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: SENDER.address, amount: TOKEN_UNITS }] }],
    });
    node = await startTronNode({ evm });
    http = createTronHttp(node.url);
    token = evmToTronBase58(evm.tokens[0]!.address);
  });
  after(async () => {
    await node?.stop();
    await evm?.stop();
  });

  test('TRX to a never-activated address: 1 TRX creation + 0.1 TRX flat (no staked bandwidth); the node charges exactly that', async () => {
    const [senderBefore, hitsBefore] = [await balance(SENDER.address), node.hits.length];
    const prepared = await prepare(trxRequest({ to: evmToTronBase58(FRESH), amount: 2_000_000n }));
    assert.deepEqual(node.hits.slice(hitsBefore).sort(), ['POST /wallet/getaccount', 'POST /wallet/getaccount', 'POST /wallet/getaccountresource', 'POST /wallet/getchainparameters', 'POST /wallet/getnowblock']);
    assert.equal(prepared.fee.accountCreationFeeSun, 1_000_000n);
    assert.equal(prepared.fee.totalFeeSun, 1_100_000n);
    // The signature recovers the sender over the txID (ethers, not our code).
    const bytes = Buffer.from(prepared.txHex, 'hex');
    const sig = bytes.subarray(bytes.length - 65);
    const recovered = SigningKey.recoverPublicKey(`0x${prepared.txHash}`, Signature.from({ r: `0x${sig.subarray(0, 32).toString('hex')}`, s: `0x${sig.subarray(32, 64).toString('hex')}`, v: 27 + sig[64]! }));
    assert.equal(computeAddress(recovered), SENDER.address);
    const answer = await broadcast(prepared.txHex);
    assert.deepEqual([answer['result'], answer['txid']], [true, prepared.txHash]);
    assert.equal(await balance(FRESH), 2_000_000n);
    assert.equal(await balance(SENDER.address), senderBefore - 2_000_000n - prepared.fee.totalFeeSun);
    const stored = await http.post('/wallet/gettransactionbyid', { value: prepared.txHash }, signal);
    assert.equal(stored['txID'], prepared.txHash);
  });

  test('TRX to an activated address within the free 600 bytes costs nothing; the node uses free bandwidth', async () => {
    const senderBefore = await balance(SENDER.address);
    const prepared = await prepare(trxRequest({}));
    assert.deepEqual([prepared.fee.bandwidthFeeSun, prepared.fee.totalFeeSun, prepared.fee.accountCreationFeeSun], [0n, 0n, undefined]);
    assert.equal((await broadcast(prepared.txHex))['result'], true);
    assert.equal(await balance(SENDER.address), senderBefore - 1_000_000n);
    assert.equal(await balance(ACTIVATED), 1n + 1_000_000n);
    const resources = await http.post('/wallet/getaccountresource', { address: evmToTronBase58(SENDER.address), visible: true }, signal);
    assert.ok(BigInt(resources['freeNetUsed'] as number) >= prepared.fee.bandwidthUsed);
  });

  test('TRC20: tokens move by the amount, TRX pays bandwidth beyond the free allowance and energy at getEnergyFee', async () => {
    node.setResources(SENDER.address, { freeNetUsed: 600n });
    const [trxBefore, tokensBefore] = [await balance(SENDER.address), await tokenBalance(SENDER.address)];
    const prepared = await prepare({ ...trxRequest({ amount: 2_500_000n }), coin: { ticker: 'USDT-TRC20', decimals: 6, contract: token } });
    assert.ok(prepared.fee.energyUsed > 0n);
    assert.equal(prepared.fee.energyFeeSun, prepared.fee.energyUsed * 210n);
    assert.equal(prepared.fee.bandwidthFeeSun, prepared.fee.bandwidthUsed * 1_000n);
    assert.equal(prepared.raw.feeLimit, prepared.fee.energyUsed * 210n);
    assert.equal((await broadcast(prepared.txHex))['result'], true);
    assert.equal(await tokenBalance(ACTIVATED), 2_500_000n);
    assert.equal(await tokenBalance(SENDER.address), tokensBefore - 2_500_000n);
    assert.equal(await balance(SENDER.address), trxBefore - prepared.fee.totalFeeSun);
  });

  test('the node refuses a rebroadcast, a foreign signature and an expired transaction', async () => {
    node.setResources(SENDER.address, { freeNetUsed: 0n });
    const prepared = await prepare(trxRequest({ amount: 1n }));
    assert.equal((await broadcast(prepared.txHex))['result'], true);
    assert.equal((await broadcast(prepared.txHex))['code'], 'DUP_TRANSACTION_ERROR');
    const other = Wallet.createRandom();
    const forged = await prepareTronWithdrawal(trxRequest({ amount: 2n }), (q) => readForWithdrawal(http, q, signal), async (d) => Buffer.from(other.signingKey.sign(d).serialized.slice(2), 'hex'));
    assert.equal((await broadcast(forged.txHex))['code'], 'SIGERROR');
    const soon = await prepare(trxRequest({ amount: 3n, expirationSeconds: 1 }));
    await evm.request('evm_increaseTime', [5]);
    await evm.request('evm_mine', []);
    assert.equal((await broadcast(soon.txHex))['code'], 'TRANSACTION_EXPIRATION_ERROR');
  });

  test('a TRC20 transfer that reverts is included as REVERT, paying its bandwidth; no token moves', async () => {
    const poor = Wallet.createRandom();
    await evm.request('hardhat_setBalance', [poor.address, '0x5f5e100']);
    const block = taposBlock(await http.post('/wallet/getnowblock', {}, signal));
    const raw = trc20Transfer(poor.address, evm.tokens[0]!.address, ACTIVATED, 1n, 10_000_000n, block);
    const signed = await signTronTransaction(raw, async (d) => Buffer.from(poor.signingKey.sign(d).serialized.slice(2), 'hex'));
    const tokensBefore = await tokenBalance(ACTIVATED);
    assert.equal((await broadcast(signed.txHex))['result'], true);
    const stored = await http.post('/wallet/gettransactionbyid', { value: signed.txHash }, signal);
    assert.deepEqual(stored['ret'], [{ contractRet: 'REVERT' }]);
    assert.equal(await tokenBalance(ACTIVATED), tokensBefore);
    // Its bandwidth came from the free 600 bytes: no TRX burnt, but the bytes are used.
    assert.equal(await balance(poor.address), 100_000_000n);
    const resources = await http.post('/wallet/getaccountresource', { address: evmToTronBase58(poor.address), visible: true }, signal);
    assert.equal(BigInt(resources['freeNetUsed'] as number), BigInt(signed.txHex.length / 2 + 64));
  });

  test('round trips: TRX and TRC20 read everything in one wave; a TRC20 max needs a second for its energy', async () => {
    const proxy = await startLatencyProxy({ target: node.url, forwardPath: true, latencyMs: 0 });
    const proxied = createTronHttp(proxy.url);
    /**
     * Holds every answer, waits until `firstWave` requests are in (sent before any answer), checks
     * that no more come while held, releases, and returns the total once the withdrawal is built.
     */
    const run = async (request: TronWithdrawRequest, firstWave: number) => {
      proxy.reset();
      const release = proxy.hold();
      const done = prepareTronWithdrawal(request, (q) => readForWithdrawal(proxied, q, signal), sign);
      while (proxy.stats().httpRequests < firstWave) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(proxy.stats().httpRequests, firstWave);
      release();
      await done;
      return proxy.stats().httpRequests;
    };
    try {
      const trc20 = { ...trxRequest({ amount: 1n }), coin: { ticker: 'USDT-TRC20', decimals: 6, contract: token } };
      assert.equal(await run(trxRequest({}), 5), 5, 'TRX: one round trip of 5 requests');
      assert.equal(await run(trc20, 6), 6, 'TRC20: one round trip of 6 requests');
      assert.equal(await run({ ...trc20, amount: 'max' }, 5), 6, 'TRC20 max: 5, then the energy estimate');
    } finally {
      await proxy.stop();
    }
  });
});
