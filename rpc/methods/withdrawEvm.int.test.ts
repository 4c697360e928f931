/**
 * EVM and ERC20 withdrawals through the RPC (issue 25, docs/compatibility.md §23): `withdraw` signs,
 * `send_raw_transaction` broadcasts, the devnet chain (EDR, which we did not write) mines it, and
 * the balances after are the balances before minus the amount and the fee. Also `max`, EIP-1559,
 * the legacy forms, the nonce book, and the node round trips a withdrawal costs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction, getAddress } from 'ethers';
import type { EvmDevnet } from '../../devnet/index.ts';
import { SWAP_CONTRACT, TEST_ADDRESS, devnetCoins, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { startLatencyProxy } from '../../devnet/proxies/latencyProxy.ts';
import { startLaggingNode } from '../../devnet/proxies/laggingNode.ts';
import { coinStream } from '../../events/log/eventLog.ts';
import type { StoredEvent } from '../../spec/events.ts';

const RECIPIENT = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const USDT = 1_000_000_000n; // 1000 at 6 decimals

const big = (hex: unknown) => BigInt(hex as string);
const ethOf = (devnet: EvmDevnet, address: string) => devnet.request('eth_getBalance', [address, 'latest']).then(big);
const tokenOf = (devnet: EvmDevnet, address: string) =>
  devnet
    .request('eth_call', [{ to: devnet.tokens[0]!.address, data: `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}` }, 'latest'])
    .then(big);
const receipt = (devnet: EvmDevnet, hash: string) => devnet.request('eth_getTransactionReceipt', [`0x${hash}`]) as Promise<{ status: string; gasUsed: string; effectiveGasPrice: string }>;

/** The devnet coins, ETH allowed EIP-1559 (`max_eth_tx_type: 2`, the reference's gate). */
const coinsOf = (devnet: EvmDevnet) => devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), max_eth_tx_type: 2 } : c));

async function activated(devnet: EvmDevnet, nodeUrl?: string): Promise<Stack> {
  const s = await startStack({ devnet, coins: coinsOf(devnet) });
  const params = enableEthParams(s, ['USDT-ERC20']);
  const answer = await s.v2('enable_eth_with_tokens', nodeUrl === undefined ? params : { ...params, nodes: [{ url: nodeUrl }] });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return s;
}

async function events(s: Stack): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of s.service.log.read()) out.push(e);
  return out;
}

describe('EVM withdrawals, broadcast and mined (devnet)', () => {
  let devnet: EvmDevnet;
  let s: Stack;
  before(async () => {
    devnet = await startTestDevnet({ nativeWei: 5n * 10n ** 18n, tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }] });
    s = await activated(devnet);
  });
  after(async () => {
    await s.stop();
    await devnet.stop();
  });

  test('ETH with EthGas: signed not broadcast, then send_raw_transaction; mined; balances after = before − amount − fee, exactly', async () => {
    const [mine, theirs] = [await ethOf(devnet, TEST_ADDRESS), await ethOf(devnet, RECIPIENT)];
    const w = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.25', fee: { type: 'EthGas', gas_price: '2.5', gas: 21000 } });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const r = w.body.result;
    assert.deepEqual(r.fee_details, { type: 'Eth', coin: 'ETH', gas: 21000, gas_price: '0.0000000025', max_fee_per_gas: null, max_priority_fee_per_gas: null, total_fee: '0.0000525' });
    assert.deepEqual([r.total_amount, r.spent_by_me, r.received_by_me, r.my_balance_change], ['0.25', '0.2500525', '0', '-0.2500525']);
    assert.deepEqual([r.from, r.to, r.coin, r.block_height, r.internal_id, r.transaction_type], [[TEST_ADDRESS], [RECIPIENT], 'ETH', 0, '', 'StandardTransfer']);
    assert.equal(await ethOf(devnet, TEST_ADDRESS), mine, 'withdraw never broadcasts');
    const sent = await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: r.tx_hex });
    assert.deepEqual(sent, { status: 200, body: { tx_hash: r.tx_hash } });
    assert.equal((await receipt(devnet, r.tx_hash)).status, '0x1');
    assert.equal(await ethOf(devnet, TEST_ADDRESS), mine - 250_000_000_000_000_000n - 52_500_000_000_000n);
    assert.equal(await ethOf(devnet, RECIPIENT), theirs + 250_000_000_000_000_000n);
    const log = await events(s);
    const signed = log.find((e) => e.type === 'WithdrawalSigned' && e.data.txHash === r.tx_hash);
    assert.equal(signed?.metadata.stream, coinStream('ETH'));
    assert.deepEqual(signed?.data, { ticker: 'ETH', from: [TEST_ADDRESS], to: [RECIPIENT], amount: '0.25', feeDetails: r.fee_details, txHash: r.tx_hash, nonce: String(Transaction.from(`0x${r.tx_hex}`).nonce) });
    const broadcast = log.find((e) => e.type === 'TransactionBroadcast' && e.data.txHash === r.tx_hash);
    assert.deepEqual(broadcast?.data, { ticker: 'ETH', txHash: r.tx_hash, node: new URL(devnet.url).origin, from: TEST_ADDRESS, nonce: signed?.data.nonce });
  });

  test('ERC20 with an estimated fee: the token moves exactly, the gas is paid in ETH (the fee details name ETH), mined', async () => {
    const [eth, usdt, theirs] = [await ethOf(devnet, TEST_ADDRESS), await tokenOf(devnet, TEST_ADDRESS), await tokenOf(devnet, RECIPIENT)];
    const w = await s.v2('withdraw', { coin: 'USDT-ERC20', to: RECIPIENT, amount: '12.345678' });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const r = w.body.result;
    assert.deepEqual([r.coin, r.total_amount, r.spent_by_me, r.my_balance_change, r.fee_details.coin], ['USDT-ERC20', '12.345678', '12.345678', '-12.345678', 'ETH']);
    const tx = Transaction.from(`0x${r.tx_hex}`);
    assert.equal(tx.to, devnet.tokens[0]!.address);
    assert.equal(tx.value, 0n);
    await s.legacy('send_raw_transaction', { coin: 'USDT-ERC20', tx_hex: `0x${r.tx_hex}` });
    const mined = await receipt(devnet, r.tx_hash);
    assert.equal(mined.status, '0x1');
    assert.equal(await tokenOf(devnet, TEST_ADDRESS), usdt - 12_345_678n);
    assert.equal(await tokenOf(devnet, RECIPIENT), theirs + 12_345_678n);
    // The chain charges the gas used (at most the estimated limit the fee details price).
    const charged = big(mined.gasUsed) * big(mined.effectiveGasPrice);
    assert.equal(await ethOf(devnet, TEST_ADDRESS), eth - charged);
    assert.ok(big(mined.gasUsed) <= BigInt(r.fee_details.gas));
    assert.equal(big(mined.effectiveGasPrice), tx.gasPrice);
  });

  test('EIP-1559 ETH max: everything but the fee is sent; mined; the wallet keeps what the max fee leaves unspent', async () => {
    const fee = { type: 'EthGasEip1559', max_fee_per_gas: '3', max_priority_fee_per_gas: '1', gas_option: { type: 'Set', gas: 21000 } };
    const before = await ethOf(devnet, TEST_ADDRESS);
    const w = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, max: true, fee });
    assert.equal(w.status, 200, JSON.stringify(w.body));
    const r = w.body.result;
    assert.deepEqual(r.fee_details, { type: 'Eth', coin: 'ETH', gas: 21000, gas_price: '0.000000003', max_fee_per_gas: '0.000000003', max_priority_fee_per_gas: '0.000000001', total_fee: '0.000063' });
    const maxFee = 21_000n * 3_000_000_000n;
    assert.equal(BigInt(Transaction.from(`0x${r.tx_hex}`).value), before - maxFee);
    assert.equal(Transaction.from(`0x${r.tx_hex}`).type, 2);
    await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: r.tx_hex });
    const mined = await receipt(devnet, r.tx_hash);
    const charged = big(mined.gasUsed) * big(mined.effectiveGasPrice);
    assert.equal(await ethOf(devnet, TEST_ADDRESS), maxFee - charged, 'before − amount − fee charged');
  });
});

describe('legacy forms and round trips', () => {
  let devnet: EvmDevnet;
  before(async () => {
    devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }] });
  });
  after(() => devnet.stop());

  test('legacy withdraw answers the TransactionDetails flat; its errors are {error}; send_raw_transaction is legacy only', async () => {
    const s = await activated(devnet);
    try {
      const flat = await s.legacy('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.01' });
      assert.equal(flat.status, 200, JSON.stringify(flat.body));
      assert.equal(flat.body.total_amount, '0.01');
      assert.equal(flat.body.result, undefined);
      const refused = await s.legacy('withdraw', { coin: 'ETH', to: RECIPIENT.toLowerCase(), amount: '0.01' });
      assert.equal(refused.status, 500);
      assert.match(refused.body.error, /Invalid address checksum/);
      const v2 = await s.v2('send_raw_transaction', { coin: 'ETH', tx_hex: flat.body.tx_hex });
      assert.equal(v2.body.error_type, 'NoSuchMethod');
      const unknown = await s.legacy('send_raw_transaction', { coin: 'NOPE', tx_hex: flat.body.tx_hex });
      assert.deepEqual([unknown.status, unknown.body.error], [500, 'No such coin: NOPE']);
    } finally {
      await s.stop();
    }
  });

  test('an ERC20 enabled on its own (legacy enable): its withdrawal pays gas in ETH (named by its coins entry), broadcast and mined', async () => {
    const s = await startStack({ devnet, coins: coinsOf(devnet) });
    try {
      const enabled = await s.legacy('enable', { coin: 'USDT-ERC20', urls: [devnet.url], swap_contract_address: SWAP_CONTRACT });
      assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
      const [eth, usdt] = [await ethOf(devnet, TEST_ADDRESS), await tokenOf(devnet, TEST_ADDRESS)];
      const w = await s.legacy('withdraw', { coin: 'USDT-ERC20', to: RECIPIENT, amount: '3', fee: { type: 'EthGas', gas_price: '1', gas: 60000 } });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      assert.deepEqual([w.body.coin, w.body.total_amount, w.body.fee_details.coin, w.body.fee_details.total_fee], ['USDT-ERC20', '3', 'ETH', '0.00006']);
      assert.equal((await s.legacy('send_raw_transaction', { coin: 'USDT-ERC20', tx_hex: w.body.tx_hex })).status, 200);
      const mined = await receipt(devnet, w.body.tx_hash);
      assert.equal(await tokenOf(devnet, TEST_ADDRESS), usdt - 3_000_000n);
      assert.equal(await ethOf(devnet, TEST_ADDRESS), eth - big(mined.gasUsed) * 1_000_000_000n);
      const short = await s.legacy('withdraw', { coin: 'USDT-ERC20', to: RECIPIENT, amount: '1', fee: { type: 'EthGas', gas_price: '100000', gas: 60000 } });
      assert.match(short.body.error, /Not enough ETH/);
    } finally {
      await s.stop();
    }
  });

  test('node round trips (counting proxy): one batch for a withdrawal with an estimated fee; max with an estimated gas takes two', async () => {
    const proxy = await startLatencyProxy({ target: devnet.url, latencyMs: 0 });
    const s = await activated(devnet, proxy.url);
    try {
      proxy.reset();
      assert.equal((await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.01' })).status, 200);
      const one = proxy.stats();
      assert.equal(one.httpRequests, 1);
      assert.deepEqual(one.byMethod, { eth_getBalance: 1, eth_getTransactionCount: 2, eth_gasPrice: 1, eth_feeHistory: 1, eth_estimateGas: 1 });
      proxy.reset();
      assert.equal((await s.v2('withdraw', { coin: 'USDT-ERC20', to: RECIPIENT, amount: '1' })).status, 200);
      assert.equal(proxy.stats().httpRequests, 1);
      assert.equal(proxy.stats().byMethod.eth_call, 1);
      proxy.reset();
      assert.equal((await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, max: true })).status, 200);
      assert.equal(proxy.stats().httpRequests, 2);
      proxy.reset();
      assert.equal((await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.01', fee: { type: 'EthGas', gas_price: '1', gas: 21000 } })).status, 200);
      assert.deepEqual(proxy.stats().byMethod, { eth_getBalance: 1, eth_getTransactionCount: 2 }, 'a given fee reads no price and estimates nothing');
    } finally {
      await s.stop();
      await proxy.stop();
    }
  });
});

describe('a task::withdraw result is a projection of the log', () => {
  test('after a restart on the same dbdir, status answers the same Ok details (tx_hex included) from the events alone', async () => {
    const devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }] });
    const dbdir = join(await mkdtemp(join(tmpdir(), 'withdraw-restart-')), 'db');
    let s = await startStack({ devnet, coins: coinsOf(devnet), dbdir });
    try {
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200);
      const taskId = (await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.3' })).body.result.task_id;
      let before: any;
      for (let i = 0; i < 200 && before?.status !== 'Ok'; i++) {
        before = (await s.v2('task::withdraw::status', { task_id: taskId, forget_if_finished: false })).body.result;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(before.status, 'Ok', JSON.stringify(before));
      await s.stop();
      s = await startStack({ devnet, coins: coinsOf(devnet), dbdir });
      const after = (await s.v2('task::withdraw::status', { task_id: taskId })).body.result;
      assert.deepEqual(after, before);
      assert.equal((await s.v2('task::withdraw::status', { task_id: taskId })).body.error_type, 'NoSuchTask', 'forgotten by the read');
    } finally {
      await s.stop();
      await devnet.stop();
    }
  });
});

describe('the nonce book (a node that does not show what it has not mined)', () => {
  let devnet: EvmDevnet;
  before(async () => {
    devnet = await startTestDevnet({ tokens: [{ symbol: 'USDT', decimals: 6, amount: USDT }] });
  });
  after(() => devnet.stop());

  test('a preview reserves nothing; a broadcast holds its nonce until mined; another transaction with that nonce is refused', async () => {
    const node = await startLaggingNode(devnet.request);
    const s = await activated(devnet, node.url);
    const nonceOf = (hex: string) => BigInt(Transaction.from(`0x${hex}`).nonce);
    let amount = 0;
    const withdraw = async () => {
      amount += 1; // each a different transaction
      const w = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: `0.00${amount}`, fee: { type: 'EthGas', gas_price: '2', gas: 21000 } });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      return w.body.result as { tx_hex: string; tx_hash: string };
    };
    try {
      const start = big(await devnet.request('eth_getTransactionCount', [TEST_ADDRESS, 'latest']));
      const preview = await withdraw();
      const again = await withdraw();
      assert.deepEqual([nonceOf(preview.tx_hex), nonceOf(again.tx_hex)], [start, start], 'signed, not broadcast: no gap');
      await devnet.request('evm_setAutomine', [false]);
      assert.equal((await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: again.tx_hex })).status, 200);
      const next = await withdraw();
      assert.equal(nonceOf(next.tx_hex), start + 1n, 'the broadcast counts though the node shows nothing pending');
      const replaced = await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: preview.tx_hex });
      assert.equal(replaced.status, 500);
      assert.match(replaced.body.error, new RegExp(`nonce ${start} of ${TEST_ADDRESS} was already used by transaction ${again.tx_hash}`));
      assert.equal((await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: next.tx_hex })).status, 200);
      await devnet.request('evm_mine', []);
      assert.equal((await receipt(devnet, next.tx_hash)).status, '0x1');
      const afterMined = await withdraw();
      assert.equal(nonceOf(afterMined.tx_hex), start + 2n, 'mined: the node count is the truth again');
    } finally {
      await devnet.request('evm_setAutomine', [true]);
      await s.stop();
      await node.stop();
    }
  });
});
