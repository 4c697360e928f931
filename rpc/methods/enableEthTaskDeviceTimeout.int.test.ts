import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEvmDevnet, startDeviceDouble, type DeviceDouble, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { createTrezorConnectWallet } from '../../infra/hardware/trezorConnectWallet.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { DEVNET_CHAIN_ID, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { describeEvents, enabledTickers, eventually, pollStatus, startTask, taskEvents, taskStatus, untilFinished, untilStatus } from '../../devnet/testing/tasks.ts';

/**
 * A device that asks the user to confirm on its screen, and a user who never does: the real
 * `@trezor/connect` over UDP against the device double, the task's waits on a manual clock. The
 * adapter runs on the same clock, so its grace period (which frees a device whose cancelled call
 * never ends) cannot fire: a device that is free again was freed by its call really ending.
 */

const DEVICE_ADDRESS = '0x73d0385F4d8E00C5e6504C6030F47BF6212736A8'; // m/44'/60'/0'/0/0 of the double's test mnemonic
const TIMEOUTS = { connectMs: 60_000, pinMs: 60_000, confirmMs: 120_000 };

let devnet: EvmDevnet;
let device: DeviceDouble;
let clock: ManualClock;
let wallet: HardwareWallet;
let stack: Stack;

before(async () => {
  devnet = await startEvmDevnet({ chainId: DEVNET_CHAIN_ID, fund: [{ address: DEVICE_ADDRESS, wei: 7n * 10n ** 17n }] });
  device = await startDeviceDouble({ confirmOnDevice: true });
  clock = new ManualClock(Date.now());
  wallet = createTrezorConnectWallet({ udpPort: device.port, clock });
  stack = await startStack({ devnet, clock, hardware: async () => wallet, taskTimeouts: TIMEOUTS });
});
after(async () => {
  await stack.stop();
  await wallet.close();
  await device.stop();
  await devnet.stop();
});

const hardwareParams = () => enableEthParams(stack, [], { priv_key_policy: 'Hardware' });
/** Lets pending I/O (status writes, UDP) run, to show that nothing happens. */
const settle = () => new Promise((r) => setTimeout(r, 50));

test('never confirmed on the device: TaskTimedOut at the confirm timeout, the device call cancelled, the coin not enabled, the device free for the next task', async () => {
  const id = await startTask(stack, hardwareParams());
  await untilStatus(stack, id, 'InProgress', 'FollowHwDeviceInstructions');
  await eventually(() => device.stats().byType.ButtonAck === 1, 'the device waiting for the press');

  clock.advance(TIMEOUTS.confirmMs - 1);
  await settle();
  assert.deepEqual((await taskStatus(stack, id, false)).body.result, { status: 'InProgress', details: 'FollowHwDeviceInstructions' }, 'not a millisecond early');

  clock.advance(1);
  assert.equal(clock.pendingTimers, 1, "the device call is aborted: the adapter's grace period for it runs");
  const { result } = await untilFinished(stack, id);
  assert.equal(result.status, 'Error');
  assert.equal(result.details.error_type, 'TaskTimedOut');
  assert.equal(result.details.error, 'Initialization task has timed out waiting for the user to confirm on the device (120000 ms)');
  assert.deepEqual(result.details.error_data, { duration_ms: TIMEOUTS.confirmMs });
  assert.deepEqual(describeEvents(await taskEvents(stack, id)).slice(-2), ['TaskProgressed:InProgress/FollowHwDeviceInstructions', 'TaskFailed']);
  assert.deepEqual(await enabledTickers(stack), [], 'the coin is not enabled');

  // The device call was cancelled on the device and ended: the adapter's grace timer is gone too.
  await eventually(() => (device.stats().byType.Cancel ?? 0) > 0 && clock.pendingTimers === 0, 'the cancelled device call to end');
  assert.equal(device.stats().byType.EthereumGetPublicKey, 1, 'no key was read');

  // The coin and the device are free: the next task reads the key once the user confirms.
  const next = await startTask(stack, hardwareParams());
  await untilStatus(stack, next, 'InProgress', 'FollowHwDeviceInstructions');
  const done = await pollStatus(stack, next, (r) => {
    device.press(); // the user confirms each time the device asks (connect reads the key and its parent)
    return r?.status === 'Ok' || r?.status === 'Error';
  });
  assert.equal(done.result.status, 'Ok', JSON.stringify(done.result));
  assert.equal(done.result.details.wallet_balance.accounts[0].addresses[0].address, DEVICE_ADDRESS);
  assert.deepEqual(await enabledTickers(stack), ['ETH']);
});
