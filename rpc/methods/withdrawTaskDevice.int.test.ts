/**
 * `task::withdraw` on a hardware-activated EVM coin (issue 25): the real `@trezor/connect` over UDP
 * to the device double, which signs (`EthereumSignTx`, `EthereumSignTxEIP1559`) after its PIN and
 * the user's confirmation on its screen; each wait has its time limit (on the test's clock). The
 * signed transaction is broadcast with `send_raw_transaction` and mined on the devnet chain.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transaction, getAddress } from 'ethers';
import { startEvmDevnet, startDeviceDouble, pinToPositions, type DeviceDouble, type EvmDevnet } from '../../devnet/index.ts';
import { createTrezorConnectWallet } from '../../infra/hardware/trezorConnectWallet.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { devnetCoins, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { eventually } from '../../devnet/testing/tasks.ts';

const DEVICE_ADDRESS = '0x73d0385F4d8E00C5e6504C6030F47BF6212736A8'; // m/44'/60'/0'/0/0 of the double's test mnemonic
const PIN = '31415926';
const RECIPIENT = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const TIMEOUTS = { connectMs: 60_000, pinMs: 120_000, confirmMs: 90_000 };

let devnet: EvmDevnet;
let device: DeviceDouble;
let wallet: HardwareWallet;
let clock: ManualClock;
let s: Stack;

const statusOf = async (taskId: number) => (await s.v2('task::withdraw::status', { task_id: taskId, forget_if_finished: false })).body.result;
async function until(taskId: number, done: (status: any) => boolean): Promise<any> {
  for (let i = 0; i < 800; i++) {
    const status = await statusOf(taskId);
    if (done(status)) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never reached the expected status (last: ${JSON.stringify(await statusOf(taskId))})`);
}
/**
 * Polls until finished, the user pressing the device's button at every poll: the double waits for a
 * press only once connect has acknowledged its button request, so a single press right after the
 * status shows `FollowHwDeviceInstructions` may come too early (a press with nothing to confirm does nothing).
 */
async function confirmUntilFinished(taskId: number): Promise<any> {
  return until(taskId, (status) => {
    device.press();
    return finished(status);
  });
}
const label = (status: any) => `${status.status}:${typeof status.details === 'string' ? status.details : ''}`;
const finished = (status: any) => status.status === 'Ok' || status.status === 'Error';
const balanceOf = (address: string) => devnet.request('eth_getBalance', [address, 'latest']).then((v) => BigInt(v as string));

async function taskTrail(taskId: number): Promise<string[]> {
  const trail: string[] = [];
  for await (const e of s.service.log.read()) {
    if (e.metadata.stream === `task.${taskId}`) trail.push(e.type === 'TaskProgressed' ? `${e.data.status}:${e.data.details}` : e.type);
  }
  return trail;
}

before(async () => {
  devnet = await startEvmDevnet({ chainId: 1337, fund: [{ address: DEVICE_ADDRESS, wei: 3n * 10n ** 18n }], tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: DEVICE_ADDRESS, amount: 42_500_000n }] }] });
  device = await startDeviceDouble({ pin: PIN, confirmOnDevice: true });
  wallet = createTrezorConnectWallet({ udpPort: device.port });
  clock = new ManualClock();
  const coins = devnetCoins(devnet).map((c) => ((c as { coin: string }).coin === 'ETH' ? { ...(c as object), max_eth_tx_type: 2 } : c));
  s = await startStack({ devnet, coins, clock, hardware: async () => wallet, taskTimeouts: TIMEOUTS });
  // The coin, activated with the device (its account node is read after the PIN and a press).
  const init = await s.v2('task::enable_eth::init', enableEthParams(s, ['USDT-ERC20'], { priv_key_policy: 'Hardware' }));
  const taskId = init.body.result.task_id;
  const poll = async () => (await s.v2('task::enable_eth::status', { task_id: taskId, forget_if_finished: false })).body.result;
  for (let i = 0; i < 800; i++) {
    const status = await poll();
    if (status.status === 'UserActionRequired') await s.v2('task::enable_eth::user_action', { task_id: taskId, user_action: { action_type: 'HardwarePin', pin: pinToPositions(PIN) } });
    if (status.details === 'FollowHwDeviceInstructions') device.press();
    if (status.status === 'Ok') break;
    assert.notEqual(status.status, 'Error', JSON.stringify(status));
    await new Promise((r) => setTimeout(r, 25));
  }
});
after(async () => {
  await s.stop();
  await wallet.close();
  await device.stop();
  await devnet.stop();
});

describe('task::withdraw on the device double', () => {
  test('legacy EthGas: Preparing → GeneratingTransaction → PIN → confirm on the device → Ok; broadcast and mined, balances exact; no PIN anywhere', async () => {
    device.lock();
    const before = [await balanceOf(DEVICE_ADDRESS), await balanceOf(RECIPIENT)];
    const init = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.5', fee: { type: 'EthGas', gas_price: '3', gas: 21000 } });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const taskId = init.body.result.task_id;
    assert.deepEqual(await until(taskId, (st) => st.status === 'UserActionRequired'), { status: 'UserActionRequired', details: 'EnterHardwarePin' });
    const action = await s.v2('task::withdraw::user_action', { task_id: taskId, user_action: { action_type: 'HardwarePin', pin: pinToPositions(PIN) } });
    assert.equal(action.body.result, 'success');
    await until(taskId, (st) => st.details === 'FollowHwDeviceInstructions');
    // The task follows the device from the PIN on; the transaction reaches it a moment later (on a
    // loaded machine, after the status already says so).
    await eventually(() => device.stats().byType.EthereumSignTx === 1, 'the device to hold the transaction, awaiting the press', 20_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await statusOf(taskId)).details, 'FollowHwDeviceInstructions', 'nothing is signed until the user confirms');
    const done = await confirmUntilFinished(taskId);
    assert.equal(done.status, 'Ok', JSON.stringify(done));
    const tx = Transaction.from(`0x${done.details.tx_hex}`);
    assert.equal(tx.from, DEVICE_ADDRESS, 'the device key signed');
    assert.deepEqual(done.details.from, [DEVICE_ADDRESS]);
    const trail = await taskTrail(taskId);
    assert.deepEqual(trail.slice(0, 4), ['TaskCreated', 'InProgress:Preparing', 'InProgress:GeneratingTransaction', 'UserActionRequired:EnterHardwarePin']);
    assert.deepEqual(trail.slice(-3), ['InProgress:FollowHwDeviceInstructions', 'InProgress:Finishing', 'TaskSucceeded']);
    assert.ok(trail.includes('HardwarePinEntered'));
    const sent = await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: done.details.tx_hex });
    assert.deepEqual(sent.body, { tx_hash: done.details.tx_hash });
    assert.equal(await balanceOf(DEVICE_ADDRESS), before[0]! - 5n * 10n ** 17n - 21_000n * 3_000_000_000n);
    assert.equal(await balanceOf(RECIPIENT), before[1]! + 5n * 10n ** 17n);
    const log = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
    assert.equal(log.includes(pinToPositions(PIN)), false, 'the PIN is not in the event log');
  });

  test('EIP-1559 and an ERC20: the device signs type 2 and a token transfer; both mined', async () => {
    const eip = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.1', fee: { type: 'EthGasEip1559', max_fee_per_gas: '4', max_priority_fee_per_gas: '1', gas: 21000 } });
    const eipId = eip.body.result.task_id;
    await until(eipId, (st) => st.details === 'FollowHwDeviceInstructions');
    const signed = await confirmUntilFinished(eipId);
    assert.equal(signed.status, 'Ok', JSON.stringify(signed));
    assert.equal(Transaction.from(`0x${signed.details.tx_hex}`).type, 2);
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'ETH', tx_hex: signed.details.tx_hex })).status, 200);
    const token = await s.v2('task::withdraw::init', { coin: 'USDT-ERC20', to: RECIPIENT, amount: '2.5' });
    const tokenId = token.body.result.task_id;
    await until(tokenId, (st) => st.details === 'FollowHwDeviceInstructions');
    const tokenDone = await confirmUntilFinished(tokenId);
    assert.equal(tokenDone.status, 'Ok', JSON.stringify(tokenDone));
    assert.equal((await s.legacy('send_raw_transaction', { coin: 'USDT-ERC20', tx_hex: tokenDone.details.tx_hex })).status, 200);
    for (const hash of [signed.details.tx_hash, tokenDone.details.tx_hash]) {
      assert.equal(((await devnet.request('eth_getTransactionReceipt', [`0x${hash}`])) as { status: string }).status, '0x1');
    }
  });

  test('time limits: no press within confirmMs → TaskTimedOut; no PIN within pinMs → TaskTimedOut; nothing signed either time', async () => {
    const init = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.01', fee: { type: 'EthGas', gas_price: '3', gas: 21000 } });
    const taskId = init.body.result.task_id;
    await until(taskId, (st) => st.details === 'FollowHwDeviceInstructions');
    clock.advance(TIMEOUTS.confirmMs);
    const timedOut = await until(taskId, finished);
    assert.deepEqual([timedOut.status, timedOut.details.error_type], ['Error', 'TaskTimedOut']);
    assert.match(timedOut.details.error, /confirm on the device \(90000 ms\)/);
    device.lock();
    const locked = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.01', fee: { type: 'EthGas', gas_price: '3', gas: 21000 } });
    const lockedId = locked.body.result.task_id;
    await until(lockedId, (st) => st.status === 'UserActionRequired');
    clock.advance(TIMEOUTS.pinMs);
    const noPin = await until(lockedId, finished);
    assert.deepEqual([noPin.status, noPin.details.error_type], ['Error', 'TaskTimedOut']);
    for (const id of [taskId, lockedId]) assert.equal((await taskTrail(id)).includes('WithdrawalSigned'), false);
    const signedEvents: unknown[] = [];
    for await (const e of s.service.log.read()) if (e.type === 'WithdrawalSigned' && (e.data.taskId === taskId || e.data.taskId === lockedId)) signedEvents.push(e);
    assert.deepEqual(signedEvents, []);
  });

  test('cancel while the device asks its PIN: success, the task is gone (NoSuchTask), nothing signed; a second cancel is NoSuchTask 404', async () => {
    device.lock();
    const init = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.01', fee: { type: 'EthGas', gas_price: '3', gas: 21000 } });
    const taskId = init.body.result.task_id;
    await until(taskId, (st) => st.status === 'UserActionRequired');
    assert.equal((await s.v2('task::withdraw::cancel', { task_id: taskId })).body.result, 'success');
    const gone = await s.v2('task::withdraw::status', { task_id: taskId });
    assert.equal(gone.body.error_type, 'NoSuchTask');
    const again = await s.v2('task::withdraw::cancel', { task_id: taskId });
    assert.deepEqual([again.status, again.body.error_type], [404, 'NoSuchTask']);
    const trail = await taskTrail(taskId);
    assert.equal(trail.at(-1), 'TaskCancelled');
    for await (const e of s.service.log.read()) assert.ok(!(e.type === 'WithdrawalSigned' && e.data.taskId === taskId));
  });

  test('plain withdraw of a hardware coin is UnsupportedError (the device signs only through the task); a wrong PIN fails the task HwError', async () => {
    const plain = await s.v2('withdraw', { coin: 'ETH', to: RECIPIENT, amount: '0.01' });
    assert.deepEqual([plain.status, plain.body.error_type], [400, 'UnsupportedError']);
    device.lock();
    const init = await s.v2('task::withdraw::init', { coin: 'ETH', to: RECIPIENT, amount: '0.01', fee: { type: 'EthGas', gas_price: '3', gas: 21000 } });
    const taskId = init.body.result.task_id;
    await until(taskId, (st) => st.status === 'UserActionRequired');
    await s.v2('task::withdraw::user_action', { task_id: taskId, user_action: { action_type: 'HardwarePin', pin: pinToPositions('9999') } });
    const done = await until(taskId, finished);
    assert.deepEqual([done.status, done.details.error_type, done.details.error_data.kind], ['Error', 'HwError', 'WrongPin']);
    assert.equal(label(await statusOf(taskId)), 'Error:');
  });
});
