/**
 * TRX and TRC20 withdrawals through the RPC (issue 25): `withdraw` (v2 and legacy flat),
 * `task::withdraw::*`, legacy `send_raw_transaction` on the devnet TRON node, which checks the
 * signature over the txID, executes the transfer and burns its own fee; and every refusal with
 * the spec's payload, nothing signed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeAddress, getAddress, Signature, SigningKey } from 'ethers';
import { startTronNode, type EvmDevnet } from '../../devnet/index.ts';
import { evmToTronBase58, evmToTronHex } from '../../infra/keys/tronAddress.ts';
import { TEST_ADDRESS, TEST_PASSPHRASE, enableTrxParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';
import type { StoredEvent } from '../../spec/events.ts';
import { formatAmount } from '../../spec/amount.ts';

const ME = evmToTronBase58(TEST_ADDRESS);
const FRESH = getAddress('0x00000000000000000000000000000000000f4e55');
const KNOWN = getAddress('0x00000000000000000000000000000000000b0b00');
const TRX_SUN = 100_000_000n;

let devnet: EvmDevnet;
let s: Stack;
const balance = async (address: string) => BigInt((await devnet.request('eth_getBalance', [address, 'latest'])) as string);
const tokenBalance = async (address: string) =>
  BigInt((await devnet.request('eth_call', [{ to: devnet.tokens[0]!.address, data: `0x70a08231${address.slice(2).padStart(64, '0')}` }, 'latest'])) as string);

before(async () => {
  devnet = await startTestDevnet({ nativeWei: TRX_SUN, tokens: [{ symbol: 'USDT', decimals: 6, amount: 50_000_000n }, { symbol: 'DAI', decimals: 18, amount: 10n ** 18n }, { symbol: 'NIL', decimals: 8, amount: 0n }] });
  await devnet.request('hardhat_setBalance', [KNOWN, '0x1']);
  s = await startStack({ devnet, tron: true });
  const { status, body } = await s.v2('enable_eth_with_tokens', enableTrxParams(s, ['USDT-TRC20', 'NIL-TRC20']));
  assert.equal(status, 200, JSON.stringify(body));
});
after(async () => {
  await s?.stop();
  await devnet?.stop();
});

/** The signature of a signed TRON transaction (its last 65 bytes) recovers to the sender over the txID (ethers). */
function signer(txHex: string, txHash: string): string {
  const bytes = Buffer.from(txHex, 'hex');
  const sig = bytes.subarray(bytes.length - 65);
  const signature = Signature.from({ r: `0x${sig.subarray(0, 32).toString('hex')}`, s: `0x${sig.subarray(32, 64).toString('hex')}`, v: 27 + sig[64]! });
  return computeAddress(SigningKey.recoverPublicKey(`0x${txHash}`, signature));
}

async function taskResult(params: Record<string, unknown>): Promise<any> {
  const init = await s.v2('task::withdraw::init', params);
  assert.equal(init.status, 200, JSON.stringify(init.body));
  for (;;) {
    const { body } = await s.v2('task::withdraw::status', { task_id: init.body.result.task_id, forget_if_finished: false });
    if (body.result.status !== 'InProgress') return body.result;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('TRX withdraw and broadcast', () => {
  test('v2 withdraw to a never-activated address: 1 TRX creation + 0.1 TRX, signed by the wallet over the txID; send_raw_transaction moves it', async () => {
    const before = await balance(TEST_ADDRESS);
    const { status, body } = await s.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(FRESH), amount: '2.5' });
    assert.equal(status, 200, JSON.stringify(body));
    const tx = body.result;
    assert.deepEqual(tx.fee_details, { type: 'Tron', coin: 'TRX', bandwidth_used: 0, energy_used: 0, bandwidth_fee: '0.100000', energy_fee: '0.000000', account_creation_fee: '1.000000', total_fee: '1.100000' });
    assert.deepEqual([tx.from, tx.to, tx.total_amount, tx.spent_by_me, tx.received_by_me, tx.my_balance_change], [[ME], [evmToTronBase58(FRESH)], '2.5', '3.6', '0', '-3.6']);
    assert.deepEqual([tx.coin, tx.block_height, tx.transaction_type, tx.internal_id, tx.memo], ['TRX', 0, 'StandardTransfer', '', null]);
    assert.equal(signer(tx.tx_hex, tx.tx_hash), TEST_ADDRESS);
    assert.equal(await balance(TEST_ADDRESS), before, 'withdraw never broadcasts');
    const sent = await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: tx.tx_hex });
    assert.deepEqual([sent.status, sent.body], [200, { tx_hash: tx.tx_hash }]);
    assert.equal(await balance(FRESH), 2_500_000n);
    assert.equal(await balance(TEST_ADDRESS), before - 3_600_000n);
  });

  test('legacy flat withdraw to an activated hex address costs nothing within the free bandwidth; expiration_seconds sets the expiry', async () => {
    const { status, body } = await s.legacy('withdraw', { coin: 'TRX', to: evmToTronHex(KNOWN), amount: '1', expiration_seconds: 120 });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.result, undefined, 'legacy answers flat');
    assert.equal(body.fee_details.total_fee, '0.000000');
    assert.equal('account_creation_fee' in body.fee_details, false);
    assert.ok(body.fee_details.bandwidth_used > 0);
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: `0x${body.tx_hex}` })).body.tx_hash, body.tx_hash);
    const stored = await fetch(`${s.tron!.url}/wallet/gettransactionbyid`, { method: 'POST', body: JSON.stringify({ value: body.tx_hash }) }).then((r) => r.json());
    assert.equal(stored.raw_data.expiration - stored.raw_data.timestamp, 120_000);
    assert.equal(await balance(KNOWN), 1n + 1_000_000n);
  });
});

describe('TRC20 through task::withdraw', () => {
  test('init → Ok with the TransactionDetails; the token amount moves, TRX pays the energy', async () => {
    s.tron!.setResources(TEST_ADDRESS, { freeNetUsed: 600n });
    const [trxBefore, tokensBefore] = [await balance(TEST_ADDRESS), await tokenBalance(TEST_ADDRESS)];
    const result = await taskResult({ coin: 'USDT-TRC20', to: evmToTronBase58(KNOWN), amount: '12.345678' });
    assert.equal(result.status, 'Ok', JSON.stringify(result));
    const tx = result.details;
    assert.equal(tx.fee_details.coin, 'TRX');
    assert.ok(tx.fee_details.energy_used > 0);
    assert.equal('account_creation_fee' in tx.fee_details, false);
    assert.deepEqual([tx.total_amount, tx.spent_by_me, tx.my_balance_change], ['12.345678', '12.345678', '-12.345678']);
    assert.equal(signer(tx.tx_hex, tx.tx_hash), TEST_ADDRESS);
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'USDT-TRC20', tx_hex: tx.tx_hex })).body.tx_hash, tx.tx_hash);
    assert.equal(await tokenBalance(KNOWN), 12_345_678n);
    assert.equal(await tokenBalance(TEST_ADDRESS), tokensBefore - 12_345_678n);
    const feeSun = BigInt(tx.fee_details.total_fee.replace('.', ''));
    assert.equal(await balance(TEST_ADDRESS), trxBefore - feeSun);
    s.tron!.setResources(TEST_ADDRESS, { freeNetUsed: 0n });
  });
});

describe('audit and task errors', () => {
  test('WithdrawalSigned and TransactionBroadcast name the TRON coin, addresses, fee details and node; no key', async () => {
    const { body } = await s.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '0.5' });
    await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: body.result.tx_hex });
    const log: StoredEvent[] = [];
    for await (const e of s.service.log.read()) log.push(e);
    const signed = log.find((e) => e.type === 'WithdrawalSigned' && (e.data as { txHash: string }).txHash === body.result.tx_hash);
    assert.deepEqual(signed?.data, { ticker: 'TRX', from: [ME], to: [evmToTronBase58(KNOWN)], amount: '0.5', feeDetails: body.result.fee_details, txHash: body.result.tx_hash });
    const sent = log.find((e) => e.type === 'TransactionBroadcast' && (e.data as { txHash: string }).txHash === body.result.tx_hash);
    assert.deepEqual(sent?.data, { ticker: 'TRX', txHash: body.result.tx_hash, node: new URL(s.tron!.url).origin });
    assert.equal(JSON.stringify(log).includes(TEST_PASSPHRASE), false);
  });
  test('task::withdraw ends Error with the refusal (memo)', async () => {
    const result = await taskResult({ coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1', memo: 'm' });
    assert.deepEqual([result.status, result.details.error_type], ['Error', 'UnsupportedError']);
  });
});

describe('refusals: the spec\'s error, nothing signed', () => {
  const signedCount = async () => {
    let n = 0;
    for await (const e of s.service.log.read()) if (e.type === 'WithdrawalSigned') n++;
    return n;
  };
  const refused = async (method: 'v2' | 'legacy', params: Record<string, unknown>, type: string, data?: unknown) => {
    const signedBefore = await signedCount();
    const { status, body } = method === 'v2' ? await s.v2('withdraw', params) : await s.legacy('withdraw', params);
    assert.equal(await signedCount(), signedBefore, 'nothing signed');
    if (method === 'legacy') {
      assert.equal(status, 500);
      assert.equal(typeof body.error, 'string');
      return body;
    }
    assert.equal(body.error_type, type, JSON.stringify(body));
    assert.equal(status, 400);
    if (data !== undefined) assert.deepEqual(body.error_data, data);
    return body;
  };
  test('InvalidAddress: an EVM address, a bad checksum', async () => {
    await refused('v2', { coin: 'TRX', to: TEST_ADDRESS, amount: '1' }, 'InvalidAddress');
    await refused('v2', { coin: 'USDT-TRC20', to: `${ME.slice(0, -1)}${ME.endsWith('a') ? 'b' : 'a'}`, amount: '1' }, 'InvalidAddress');
    await refused('legacy', { coin: 'TRX', to: TEST_ADDRESS, amount: '1' }, 'InvalidAddress');
  });
  test('InvalidFeePolicy naming what fits, for every fee type', async () => {
    for (const fee of [{ type: 'EthGas', gas_price: '1', gas: 21000 }, { type: 'UtxoFixed', amount: '0.001' }, { type: 'Qrc20Gas', gas_limit: 100000, gas_price: '40' }]) {
      const body = await refused('v2', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1', fee }, 'InvalidFeePolicy');
      assert.match(body.error, /omit the fee field/);
    }
  });
  test('a memo is UnsupportedError', async () => {
    const body = await refused('v2', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1', memo: 'hello' }, 'UnsupportedError');
    assert.match(body.error, /memo/i);
  });
  test('NotSufficientBalance: more TRX than held (required = amount), amount + fee (required = sum), TRC20 tokens', async () => {
    const held = await balance(TEST_ADDRESS);
    const trx = (sun: bigint) => (Number(sun) / 1e6).toString();
    await refused('v2', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1000' }, 'NotSufficientBalance', { coin: 'TRX', available: trx(held), required: '1000' });
    const other = getAddress('0x00000000000000000000000000000000000f4e56');
    await refused('v2', { coin: 'TRX', to: evmToTronBase58(other), amount: trx(held - 1n) }, 'NotSufficientBalance', { coin: 'TRX', available: trx(held), required: trx(held - 1n + 1_100_000n) });
    await refused('v2', { coin: 'USDT-TRC20', to: evmToTronBase58(KNOWN), amount: '100' }, 'NotSufficientBalance', { coin: 'USDT-TRC20', available: (Number(await tokenBalance(TEST_ADDRESS)) / 1e6).toString(), required: '100' });
  });
  test('max: of a zero token balance is ZeroBalanceToWithdrawMax; of TRX sends balance − fee', async () => {
    await refused('v2', { coin: 'NIL-TRC20', to: evmToTronBase58(KNOWN), max: true }, 'ZeroBalanceToWithdrawMax');
    const held = await balance(TEST_ADDRESS);
    const { body } = await s.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), max: true });
    const feeSun = BigInt(body.result.fee_details.total_fee.replace('.', ''));
    assert.equal(BigInt(body.result.total_amount.replace('.', '').padEnd(1, '0')) > 0n, true);
    assert.equal(BigInt(Math.round(Number(body.result.total_amount) * 1e6)) + feeSun, held);
  });
  test('TRC20 max sends the whole token balance; the fee stays in TRX', async () => {
    const tokens = await tokenBalance(TEST_ADDRESS);
    const { status, body } = await s.v2('withdraw', { coin: 'USDT-TRC20', to: evmToTronBase58(KNOWN), max: true });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.result.total_amount, formatAmount(tokens, 6));
    assert.equal(body.result.spent_by_me, formatAmount(tokens, 6));
    assert.ok(body.result.fee_details.energy_used > 0);
  });
  test('TRX short of a TRC20 fee is NotSufficientBalance naming TRX', async () => {
    const held = await balance(TEST_ADDRESS);
    s.tron!.setResources(TEST_ADDRESS, { freeNetUsed: 600n });
    await devnet.request('hardhat_setBalance', [TEST_ADDRESS, '0x1']);
    try {
      const body = await refused('v2', { coin: 'USDT-TRC20', to: evmToTronBase58(KNOWN), amount: '1' }, 'NotSufficientBalance');
      assert.equal(body.error_data.coin, 'TRX');
      assert.equal(body.error_data.available, '0.000001');
    } finally {
      await devnet.request('hardhat_setBalance', [TEST_ADDRESS, `0x${held.toString(16)}`]);
      s.tron!.setResources(TEST_ADDRESS, { freeNetUsed: 0n });
    }
  });
  test('send_raw_transaction: bad hex, a tampered transaction (SIGERROR), a duplicate', async () => {
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: 'xyz' })).status, 500);
    const { body } = await s.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '0.000001' });
    const tx = body.result;
    const tampered = tx.tx_hex.slice(0, -2) + (tx.tx_hex.endsWith('00') ? '01' : '00');
    const sig = await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: tampered });
    assert.equal(sig.status, 500);
    assert.match(sig.body.error, /SIGERROR/);
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: tx.tx_hex })).status, 200);
    assert.match((await s.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: tx.tx_hex })).body.error, /DUP_TRANSACTION_ERROR/);
  });
});

describe('HD wallet: the sender from `from`', () => {
  const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  test('from address_id 1 signs with that address\'s key and spends its TRX; an unknown address is UnexpectedFromAddress', async () => {
    const keys = createHdKeyProvider(MNEMONIC);
    const at = async (addressId: number) => evmAddress(await keys.publicKey({ coin: 'TRX', derivation_path: "m/44'/195'" }, { accountId: 0, chain: 'External', addressId }));
    const [first, second] = [await at(0), await at(1)];
    await devnet.request('hardhat_setBalance', [first, '0x2a']);
    await devnet.request('hardhat_setBalance', [second, `0x${(5_000_000n).toString(16)}`]);
    const hd = await startStack({ devnet, tron: true, config: { enable_hd: true, passphrase: MNEMONIC } });
    try {
      assert.equal((await hd.v2('enable_eth_with_tokens', enableTrxParams(hd, [], { gap_limit: 1 }))).status, 200);
      const from = { account_id: 0, chain: 'External', address_id: 1 };
      const { status, body } = await hd.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1', from });
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.result.from, [evmToTronBase58(second)]);
      assert.equal(signer(body.result.tx_hex, body.result.tx_hash), second);
      assert.equal((await hd.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: body.result.tx_hex })).status, 200);
      assert.equal(await balance(second), 4_000_000n - BigInt(body.result.fee_details.total_fee.replace('.', '')));
      const unknown = await hd.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '1', from: { ...from, address_id: 7 } });
      assert.equal(unknown.body.error_type, 'UnexpectedFromAddress', JSON.stringify(unknown.body));
    } finally {
      await hd.stop();
    }
  });
});

describe('node failover', () => {
  test('with the first node failing after activation, the withdrawal reads and the broadcast go to the next; the event names the node that took it', async () => {
    const first = await startTronNode({ evm: devnet });
    const failing = await startStack({ devnet, tron: true });
    try {
      const params = { ...enableTrxParams(failing, []), nodes: [{ url: first.url }, { url: failing.tron!.url }] };
      assert.equal((await failing.v2('enable_eth_with_tokens', params)).status, 200);
      first.setBusy(true);
      const { status, body } = await failing.v2('withdraw', { coin: 'TRX', to: evmToTronBase58(KNOWN), amount: '0.1' });
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual((await failing.legacy('send_raw_transaction', { coin: 'TRX', tx_hex: body.result.tx_hex })).body, { tx_hash: body.result.tx_hash });
      const log: StoredEvent[] = [];
      for await (const e of failing.service.log.read()) log.push(e);
      const sent = log.find((e) => e.type === 'TransactionBroadcast');
      assert.equal((sent?.data as { node: string }).node, new URL(failing.tron!.url).origin);
      assert.ok(first.hits.some((hit) => hit.endsWith('/wallet/getaccountresource')), 'the first node was asked first');
    } finally {
      await failing.stop();
      await first.stop();
    }
  });
});
