/**
 * Every refusal of an EVM/ERC20 withdrawal through the RPC (issue 25, docs/compatibility.md §23):
 * the reference's error types, HTTP statuses and `error_data`; and a refused withdrawal changes
 * nothing (no event, no nonce, no balance). HD senders (`from`) on a mnemonic wallet.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction, getAddress } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { DEVNET_CHAIN_ID, SWAP_CONTRACT, TEST_ADDRESS, devnetCoins, enableEthParams, startStack, startTestDevnet, type Stack } from '../../devnet/testing/stack.ts';
import { createHdKeyProvider } from '../../infra/keys/hd.ts';
import { evmAddress } from '../../infra/keys/index.ts';

const RECIPIENT = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const ETH_WEI = 10n ** 17n; // 0.1 ETH

describe('withdraw refusals (Iguana wallet, devnet)', () => {
  let devnet: EvmDevnet;
  let s: Stack;
  before(async () => {
    devnet = await startTestDevnet({ nativeWei: ETH_WEI, tokens: [{ symbol: 'USDT', decimals: 6, amount: 5_000_000n }, { symbol: 'DAI', decimals: 18, amount: 0n }] });
    const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), max_eth_tx_type: 2 } : c));
    s = await startStack({ devnet, coins });
    assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, ['USDT-ERC20', 'DAI-ERC20']))).status, 200);
  });
  after(async () => {
    await s.stop();
    await devnet.stop();
  });

  const withdraw = (params: Record<string, unknown>) => s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.01', ...params });
  const refusal = async (params: Record<string, unknown>, status: number, errorType: string, data?: unknown) => {
    const { status: got, body } = await withdraw(params);
    assert.equal(got, status, JSON.stringify(body));
    assert.equal(body.error_type, errorType, JSON.stringify(body));
    if (data !== undefined) assert.deepEqual(body.error_data, data);
    assert.doesNotMatch(JSON.stringify(body), /\/work\/|\/home\/|\.ts:\d+|passphrase/i, 'no stack, path or secret');
    return body;
  };

  test('an inactive coin: NoSuchCoin 404 {coin}', async () => {
    await refusal({ coin: 'BNB' }, 404, 'NoSuchCoin', { coin: 'BNB' });
  });

  test('recipients: all-lowercase, a wrong EIP-55 checksum, no 0x, too short → InvalidAddress naming why', async () => {
    const wrongCase = RECIPIENT.replace(/[a-f]/, (c) => c.toUpperCase());
    for (const [to, why] of [[RECIPIENT.toLowerCase(), /checksum/], [wrongCase, /checksum/], [RECIPIENT.slice(2), /0x/], ['0x1234', /20 bytes/]] as const) {
      const body = await refusal({ to }, 400, 'InvalidAddress');
      assert.match(body.error_data, why);
    }
  });

  test('fee types: UtxoFixed, Qrc20Gas → InvalidFeePolicy naming EthGas; EIP-1559 on a coin without max_eth_tx_type 2 → TxTypeNotSupported', async () => {
    for (const fee of [{ type: 'UtxoFixed', amount: '0.001' }, { type: 'Qrc20Gas', gas_limit: 100000, gas_price: 40 }, { type: 'CosmosGas', gas_limit: 1, gas_price: 1 }]) {
      const body = await refusal({ fee }, 400, 'InvalidFeePolicy');
      assert.match(body.error_data, /Expected 'EthGas' or 'EthGasEip1559' fee type/);
    }
    await refusal({ coin: 'USDT-ERC20', amount: '1', fee: { type: 'EthGasEip1559', max_fee_per_gas: '2', max_priority_fee_per_gas: '1' } }, 400, 'TxTypeNotSupported');
    await refusal({ fee: { type: 'EthGasEip1559', max_fee_per_gas: '1', max_priority_fee_per_gas: '2' } }, 400, 'InvalidFee');
  });

  test('balances: ETH short → NotSufficientBalance {coin ETH}; a token amount short names the token; its gas short names ETH', async () => {
    await refusal({ amount: '0.2' }, 400, 'NotSufficientBalance', { coin: 'ETH', available: '0.1', required: '0.2' });
    await refusal({ amount: '0.1', fee: { type: 'EthGas', gas_price: '1', gas: 21000 } }, 400, 'NotSufficientBalance', { coin: 'ETH', available: '0.1', required: '0.100021' });
    await refusal({ coin: 'USDT-ERC20', amount: '6' }, 400, 'NotSufficientBalance', { coin: 'USDT-ERC20', available: '5', required: '6' });
    await refusal({ coin: 'USDT-ERC20', amount: '1', fee: { type: 'EthGas', gas_price: '10000', gas: 100000 } }, 400, 'NotSufficientBalance', {
      coin: 'ETH',
      available: '0.1',
      required: '1',
    });
  });

  test('amounts: max below the fee → AmountTooLow {amount, threshold}; zero → AmountTooLow; a token max of nothing → ZeroBalanceToWithdrawMax', async () => {
    await refusal({ amount: undefined, max: true, fee: { type: 'EthGas', gas_price: '10000', gas: 21000 } }, 400, 'AmountTooLow', { amount: '0.1', threshold: '0.21' });
    await refusal({ amount: '0' }, 400, 'AmountTooLow', { amount: '0', threshold: '0.000000000000000001' });
    await refusal({ coin: 'DAI-ERC20', amount: undefined, max: true }, 400, 'ZeroBalanceToWithdrawMax');
  });

  test('fields this service cannot honour are refused by name: from (Iguana), broadcast, memo, expiration, UtxoPriority, foreign fee fields, excess decimals', async () => {
    await refusal({ from: { derivation_path: "m/44'/60'/0'/0/1" } }, 400, 'UnexpectedFromAddress', "'from' is not supported if the coin is initialized with an Iguana private key");
    const named: [Record<string, unknown>, RegExp, string][] = [
      [{ broadcast: true }, /params\.broadcast/, 'InvalidRequest'],
      [{ ibc_source_channel: 'channel-1' }, /ibc_source_channel/, 'InvalidRequest'],
      [{ expiration_seconds: 30 }, /expiration_seconds/, 'InvalidRequest'],
      [{ fee: { type: 'UtxoPriority', priority: 'Low' } }, /UtxoPriority/, 'InvalidRequest'],
      [{ fee: { type: 'EthGas', gas_price: '1', gas: 21000, amount: '1' } }, /params\.fee\.amount: not a field of fee type EthGas/, 'InvalidRequest'],
      [{ fee: { type: 'EthGas', gas_price: '1' } }, /params\.fee\.gas: required/, 'InvalidRequest'],
      [{ amount: '0.0000000000000000001' }, /more than 18 decimals/, 'InvalidRequest'],
      [{ amount: 1e-7 }, /plain decimal/, 'InvalidRequest'],
      [{ max: true }, /either an amount or max/, 'InvalidRequest'],
      [{ amount: undefined }, /params\.amount: required/, 'InvalidRequest'],
    ];
    for (const [params, message, type] of named) {
      const body = await refusal(params, 400, type);
      assert.match(body.error, message);
    }
    await refusal({ memo: 'hi' }, 400, 'InvalidMemo');
  });

  test('task::withdraw: an inactive coin is refused at init (NoSuchCoin 404); a bad recipient ends the task Error; another kind does not see it; a finished task cannot be cancelled', async () => {
    const inactive = await s.v2('task::withdraw::init', { coin: 'BNB', to: RECIPIENT, amount: '1' });
    assert.deepEqual([inactive.status, inactive.body.error_type, inactive.body.error_data], [404, 'NoSuchCoin', { coin: 'BNB' }]);
    const badFee = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '1', fee: { type: 'EthGas', gas: 21000 } });
    assert.deepEqual([badFee.status, badFee.body.error_type], [400, 'InvalidRequest'], 'a malformed request creates no task');
    const init = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT.toLowerCase(), amount: '0.01' });
    const taskId = init.body.result.task_id;
    let status: any;
    for (let i = 0; i < 200 && status?.status !== 'Error'; i++) {
      status = (await s.v2('task::withdraw::status', { task_id: taskId, forget_if_finished: false })).body.result;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual([status.status, status.details.error_type], ['Error', 'InvalidAddress']);
    const otherKind = await s.v2('task::enable_eth::status', { task_id: taskId });
    assert.equal(otherKind.body.error_type, 'NoSuchTask');
    const cancel = await s.v2('task::withdraw::cancel', { task_id: taskId });
    assert.deepEqual([cancel.status, cancel.body.error_type], [409, 'TaskFinished']);
    const forgotten = await s.v2('task::withdraw::status', { task_id: taskId });
    assert.equal(forgotten.body.result.status, 'Error');
    assert.equal((await s.v2('task::withdraw::status', { task_id: taskId })).body.error_type, 'NoSuchTask', 'forgotten once read with forget_if_finished');
  });

  test('a refused withdrawal changes nothing: no event, no nonce taken, no balance moved', async () => {
    const before: unknown[] = [];
    for await (const e of s.service.log.read()) before.push(e);
    const balance = await devnet.request('eth_getBalance', [TEST_ADDRESS, 'latest']);
    await refusal({ amount: '5' }, 400, 'NotSufficientBalance');
    await refusal({ to: RECIPIENT.toLowerCase() }, 400, 'InvalidAddress');
    let count = 0;
    for await (const _ of s.service.log.read()) count += 1;
    assert.equal(count, before.length);
    assert.equal(await devnet.request('eth_getBalance', [TEST_ADDRESS, 'latest']), balance);
    const ok = await withdraw({});
    assert.equal(Transaction.from(`0x${ok.body.result.tx_hex}`).nonce, 0);
  });
});

describe('HD senders (`from`, spec 2.3 WithdrawFromInfo)', () => {
  const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const keys = createHdKeyProvider(MNEMONIC);
  const at = async (addressId: number) => evmAddress(await keys.publicKey({ coin: 'ETH', derivation_path: "m/44'/60'" }, { accountId: 0, chain: 'External', addressId }));
  let devnet: EvmDevnet;
  let s: Stack;
  let a: string[];
  before(async () => {
    a = await Promise.all([0, 1, 2].map(at));
    devnet = await startEvmDevnet({ chainId: DEVNET_CHAIN_ID, fund: [{ address: a[0]!, wei: 10n ** 18n }, { address: a[1]!, wei: 3n * 10n ** 17n }] });
    s = await startStack({ devnet, config: { enable_hd: true, passphrase: MNEMONIC } });
    const params = { ticker: 'ETH', nodes: [{ url: devnet.url }], swap_contract_address: SWAP_CONTRACT, fallback_swap_contract: SWAP_CONTRACT, erc20_tokens_requests: [], gap_limit: 2 };
    assert.equal((await s.v2('enable_eth_with_tokens', params)).status, 200);
  });
  after(async () => {
    await s.stop();
    await devnet.stop();
  });

  test('no from: the enabled address; from by path or by account/chain/index: that known address signs (the signature recovers it)', async () => {
    const plain = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.1' });
    assert.deepEqual(plain.body.result.from, [a[0]]);
    for (const from of [{ derivation_path: "m/44'/60'/0'/0/1" }, { account_id: 0, chain: 'External', address_id: 1 }]) {
      const w = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.1', from });
      assert.equal(w.status, 200, JSON.stringify(w.body));
      assert.deepEqual(w.body.result.from, [a[1]]);
      assert.equal(Transaction.from(`0x${w.body.result.tx_hex}`).from, a[1]);
    }
  });

  test('an address the wallet does not know → UnexpectedFromAddress; another account → UnknownAccount {account_id}', async () => {
    const unknown = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.1', from: { account_id: 0, chain: 'External', address_id: 40 } });
    assert.deepEqual([unknown.status, unknown.body.error_type, unknown.body.error_data], [400, 'UnexpectedFromAddress', "'m/44'/60'/0'/0/40' address is not activated"]);
    const foreign = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.1', from: { derivation_path: "m/44'/0'/0'/0/0" } });
    assert.deepEqual([foreign.status, foreign.body.error_type], [400, 'UnexpectedFromAddress']);
    const account = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.1', from: { account_id: 3, chain: 'External', address_id: 0 } });
    assert.deepEqual([account.status, account.body.error_type, account.body.error_data], [400, 'UnknownAccount', { account_id: 3 }]);
  });
});
