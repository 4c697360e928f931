import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEvmDevnet, startDeviceDouble, pinToPositions, type DeviceDouble, type EvmDevnet } from '../../devnet/index.ts';
import { createTrezorConnectWallet } from '../../infra/hardware/trezorConnectWallet.ts';
import type { HardwareWallet } from '../../actors/ports/hardwareWallet.ts';
import { hdActivationResult } from '../../spec/activationResult.ts';
import { enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';

/** The real @trezor/connect, over UDP on 127.0.0.1, against the device double (issue: PIN flow). */

const DEVICE_ADDRESS = '0x73d0385F4d8E00C5e6504C6030F47BF6212736A8'; // m/44'/60'/0'/0/0 of the test mnemonic
const PIN = '31415926'; // long: its keypad positions must not turn up by chance in hex data

let devnet: EvmDevnet;
let device: DeviceDouble;
let wallet: HardwareWallet;
let stack: Stack;

before(async () => {
  devnet = await startEvmDevnet({
    chainId: 1337,
    fund: [{ address: DEVICE_ADDRESS, wei: 3n * 10n ** 18n }],
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: DEVICE_ADDRESS, amount: 42_500_000n }] }],
  });
  device = await startDeviceDouble({ pin: PIN });
  wallet = createTrezorConnectWallet({ udpPort: device.port });
  stack = await startStack({ devnet, hardware: async () => wallet, taskTimeouts: { connectMs: 60_000, pinMs: 60_000, confirmMs: 60_000 } });
});
after(async () => {
  await stack.stop();
  await wallet.close();
  await device.stop();
  await devnet.stop();
});

async function statusOf(taskId: number): Promise<any> {
  return (await stack.v2('task::enable_eth::status', { task_id: taskId, forget_if_finished: false })).body.result;
}

async function until(taskId: number, done: (s: any) => boolean): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const s = await statusOf(taskId);
    if (done(s)) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never reached the expected status`);
}

test('hardware task: device PIN through the real @trezor/connect, then the HD-shaped result', async () => {
  const init = await stack.v2('task::enable_eth::init', enableEthParams(stack, ['USDT-ERC20'], { priv_key_policy: 'Hardware' }));
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const taskId = init.body.result.task_id;
  const asking = await until(taskId, (s) => s.status !== 'InProgress');
  assert.deepEqual(asking, { status: 'UserActionRequired', details: 'EnterHardwarePin' });

  const action = await stack.v2('task::enable_eth::user_action', {
    task_id: taskId,
    user_action: { action_type: 'HardwarePin', pin: pinToPositions(PIN) },
  });
  assert.deepEqual(action.body.result, 'success');
  const done = await until(taskId, (s) => s.status === 'Ok' || s.status === 'Error');
  assert.equal(done.status, 'Ok', JSON.stringify(done));
  assert.ok(hdActivationResult.check(done.details), JSON.stringify(hdActivationResult.firstProblem(done.details)));
  const account = done.details.wallet_balance.accounts[0];
  assert.equal(account.derivation_path, "m/44'/60'/0'");
  assert.deepEqual(account.addresses[0], {
    address: DEVICE_ADDRESS,
    derivation_path: "m/44'/60'/0'/0/0",
    chain: 'External',
    balance: { ETH: { spendable: '3', unspendable: '0' }, 'USDT-ERC20': { spendable: '42.5', unspendable: '0' } },
  });
  assert.deepEqual(account.total_balance, account.addresses[0].balance);

  const events: string[] = [];
  for await (const e of stack.service.log.read()) {
    if (e.metadata.stream === `task.${taskId}`) events.push(e.type === 'TaskProgressed' ? `${e.data.status}:${e.data.details}` : e.type);
  }
  assert.deepEqual(events.slice(0, 4), ['TaskCreated', 'InProgress:ActivatingCoin', 'InProgress:WaitingForHardwareToConnect', 'InProgress:ActivatingCoin']);
  assert.ok(events.includes('UserActionRequired:EnterHardwarePin'));
  assert.ok(events.includes('HardwarePinEntered'));
  assert.equal(events.at(-1), 'TaskSucceeded');
  const log = await readFile(join(stack.dir, 'db', 'events.log'), 'utf8');
  assert.equal(log.includes(pinToPositions(PIN)), false, 'the PIN is not in the event log');
  await stack.legacy('disable_coin', { coin: 'ETH', force_disable: true });
});

test('hardware task: a wrong PIN fails the task with HwError, like the device', async () => {
  device.lock();
  const init = await stack.v2('task::enable_eth::init', enableEthParams(stack, [], { priv_key_policy: 'Hardware' }));
  const taskId = init.body.result.task_id;
  await until(taskId, (s) => s.status === 'UserActionRequired');
  await stack.v2('task::enable_eth::user_action', { task_id: taskId, user_action: { action_type: 'HardwarePin', pin: pinToPositions('9999') } });
  const done = await until(taskId, (s) => s.status === 'Ok' || s.status === 'Error');
  assert.equal(done.status, 'Error');
  assert.equal(done.details.error_type, 'HwError');
  assert.equal(done.details.error_data.kind, 'WrongPin');
  assert.deepEqual((await stack.v2('get_enabled_coins')).body.result.coins, []);
});
