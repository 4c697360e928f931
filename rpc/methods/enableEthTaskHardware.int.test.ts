import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEvmDevnet, type EvmDevnet } from '../../devnet/index.ts';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { DEVNET_CHAIN_ID, TEST_ADDRESS, enableEthParams, startStack, type Stack } from '../../devnet/testing/stack.ts';
import { FAKE_DEVICE_MNEMONIC, FakeHardwareWallet, type FakeCall } from '../../devnet/hardware/fakeHardwareWallet.ts';
import { HDNodeWallet } from 'ethers';
import {
  cancelTask,
  describeEvents,
  enabledTickers,
  enterPin,
  initTask,
  startTask,
  taskEvents,
  taskStatus,
  untilFinished,
  untilStatus,
} from '../../devnet/testing/tasks.ts';

/**
 * `task::enable_eth::*` with `priv_key_policy: "Hardware"`: the real service over HTTP and a real
 * devnet, with a fake `HardwareWallet` the test drives (connect, PIN, button) and a ManualClock for
 * the 300 s device waits (connect, PIN, confirmation).
 */

const PIN = '95827146';
const TIMEOUTS = { connectMs: 300_000, pinMs: 300_000, confirmMs: 300_000 };
const DEVICE_ADDRESS = new FakeHardwareWallet().address;
/** The device's address 2 of ETH account 1, by ethers' derivation from its seed (not the service's code). */
const ACCOUNT1_ADDRESS2 = HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, "m/44'/60'/1'/0/2").address;
const DEVICE_WEI = 2_500_000_000_000_000_003n;
const DEVICE_USDT = 42_000_001n;

let devnet: EvmDevnet;
before(async () => {
  devnet = await startEvmDevnet({
    chainId: DEVNET_CHAIN_ID,
    fund: [{ address: TEST_ADDRESS, wei: 10n ** 18n }, { address: DEVICE_ADDRESS, wei: DEVICE_WEI }, { address: ACCOUNT1_ADDRESS2, wei: 7n }],
    tokens: [{ symbol: 'USDT', decimals: 6, mint: [{ address: DEVICE_ADDRESS, amount: DEVICE_USDT }, { address: ACCOUNT1_ADDRESS2, amount: 5n }] }],
  });
});
after(() => devnet.stop());

interface HwStack {
  readonly s: Stack;
  readonly fake: FakeHardwareWallet;
  readonly clock: ManualClock;
}

async function hwStack(fake: FakeHardwareWallet): Promise<HwStack> {
  const clock = new ManualClock();
  const noPath = { coin: 'NOPATH', decimals: 18, protocol: { type: 'ETH', protocol_data: { chain_id: DEVNET_CHAIN_ID } } };
  const s = await startStack({ devnet, clock, hardware: async () => fake, taskTimeouts: TIMEOUTS, extraCoins: [noPath] });
  return { s, fake, clock };
}

const hardwareParams = (s: Stack, tokens: string[] = ['USDT-ERC20'], extra: Record<string, unknown> = {}) =>
  enableEthParams(s, tokens, { priv_key_policy: 'Hardware', ...extra });

const callsOf = (fake: FakeHardwareWallet, kind: FakeCall['kind']) => fake.calls.filter((c) => c.kind === kind);

/** Lets pending I/O (event writes, polls) run, to show that nothing happens. */
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('task::enable_eth with a hardware key (fake device)', () => {
  test('connect → PIN → device instructions → Ok with the HD-shaped result; the PIN is never written anywhere', async () => {
    const previousLevel = process.env.COIN_ACTIVATION_LOG;
    process.env.COIN_ACTIVATION_LOG = 'info';
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof process.stderr.write;
    const responses: string[] = [];
    const { s: raw, fake } = await hwStack(new FakeHardwareWallet({ pin: PIN, holdForButton: true }));
    const s: Stack = {
      ...raw,
      v2: async (method, params) => {
        const answer = await raw.v2(method, params);
        responses.push(JSON.stringify(answer.body));
        return answer;
      },
    };
    let stopped = false;
    try {
      const id = await startTask(s, hardwareParams(s));
      await untilStatus(s, id, 'InProgress', 'WaitingForHardwareToConnect');
      assert.equal(callsOf(fake, 'waitForDevice').length, 1);

      fake.connect();
      await untilStatus(s, id, 'UserActionRequired', 'EnterHardwarePin');
      assert.deepEqual(callsOf(fake, 'accountPublicNode').map((c) => [c.path, c.protocol]), [["m/44'/60'/0'", 'ethereum']]);
      // A malformed PIN is refused without touching the task.
      const malformed = await enterPin(s, id, `${PIN}0`);
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error_type, 'InvalidRequest');
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'EnterHardwarePin');
      assert.equal(fake.pinRequests, 1);
      assert.equal(fake.pinsChecked, 0);

      const entered = await enterPin(s, id, PIN);
      assert.deepEqual(entered.body, { mmrpc: '2.0', result: 'success', id: null });
      await untilStatus(s, id, 'InProgress', 'FollowHwDeviceInstructions');
      const again = await enterPin(s, id, PIN);
      assert.equal(again.status, 500, 'a second PIN is not awaited');
      assert.equal(again.body.error_type, 'InternalError');
      fake.confirm();

      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      const block = Number(BigInt((await devnet.request('eth_blockNumber', [])) as string));
      const balance = { ETH: { spendable: '2.500000000000000003', unspendable: '0' }, 'USDT-ERC20': { spendable: '42.000001', unspendable: '0' } };
      assert.deepEqual(result.details, {
        current_block: block,
        ticker: 'ETH',
        wallet_balance: {
          wallet_type: 'HD',
          accounts: [
            {
              account_index: 0,
              derivation_path: "m/44'/60'/0'",
              total_balance: balance,
              addresses: [{ address: DEVICE_ADDRESS, derivation_path: "m/44'/60'/0'/0/0", chain: 'External', balance }],
            },
          ],
        },
        nfts_infos: {},
      });
      assert.equal((await taskStatus(s, id)).body.result.status, 'Ok');
      assert.equal((await taskStatus(s, id)).body.error_type, 'NoSuchTask');
      assert.deepEqual(await enabledTickers(s), ['ETH', 'USDT-ERC20']);
      const mine = await s.legacy('my_balance', { coin: 'ETH' });
      assert.equal(mine.body.address, DEVICE_ADDRESS);

      assert.deepEqual(describeEvents(await taskEvents(s, id)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/WaitingForHardwareToConnect',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:UserActionRequired/EnterHardwarePin',
        'HardwarePinEntered',
        'TaskProgressed:InProgress/FollowHwDeviceInstructions',
        'TaskProgressed:InProgress/RequestingWalletBalance',
        'TaskProgressed:InProgress/Finishing',
        'TaskSucceeded',
        'TaskForgotten',
      ]);

      await raw.stop();
      stopped = true;
      const log = await readFile(join(s.dir, 'db', 'events.log'), 'utf8');
      assert.ok(log.includes('HardwarePinEntered'));
      assert.ok(stderr.join('').includes('"level":"info"'), 'the service logged at info level');
      for (const [where, text] of [['event log', log], ['responses', responses.join('\n')], ['stderr', stderr.join('')]] as const) {
        assert.equal(text.includes(PIN), false, `the PIN appears in the ${where}`);
      }
    } finally {
      process.stderr.write = write;
      if (previousLevel === undefined) delete process.env.COIN_ACTIVATION_LOG;
      else process.env.COIN_ACTIVATION_LOG = previousLevel;
      if (!stopped) await raw.stop();
    }
  });

  test('a wrong PIN ends the task with HwError; the ticker is free again', async () => {
    const { s, fake } = await hwStack(new FakeHardwareWallet({ pin: PIN, connected: true }));
    try {
      const id = await startTask(s, hardwareParams(s));
      await untilStatus(s, id, 'UserActionRequired', 'EnterHardwarePin');
      assert.equal((await enterPin(s, id, '1111')).body.result, 'success');
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Error');
      assert.equal(result.details.error_type, 'HwError');
      assert.deepEqual(result.details.error_data, { kind: 'WrongPin' });
      assert.equal(fake.pinsChecked, 1);
      assert.deepEqual(await enabledTickers(s), []);
      assert.deepEqual(describeEvents(await taskEvents(s, id)).slice(-3), [
        'HardwarePinEntered',
        'TaskProgressed:InProgress/FollowHwDeviceInstructions',
        'TaskFailed',
      ]);
      const retry = await startTask(s, hardwareParams(s));
      await untilStatus(s, retry, 'UserActionRequired', 'EnterHardwarePin');
      await enterPin(s, retry, PIN);
      assert.equal((await untilFinished(s, retry)).result.status, 'Ok');
    } finally {
      await s.stop();
    }
  });

  test('no device: TaskTimedOut exactly at the connect timeout, not a millisecond earlier', async () => {
    const { s, fake, clock } = await hwStack(new FakeHardwareWallet({ pin: PIN }));
    try {
      const id = await startTask(s, hardwareParams(s));
      await untilStatus(s, id, 'InProgress', 'WaitingForHardwareToConnect');
      clock.advance(TIMEOUTS.connectMs - 1);
      await settle();
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'WaitingForHardwareToConnect');
      assert.equal(callsOf(fake, 'waitForDevice')[0]!.signal.aborted, false);

      clock.advance(1);
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Error');
      assert.equal(result.details.error_type, 'TaskTimedOut');
      assert.deepEqual(result.details.error_data, { duration_ms: TIMEOUTS.connectMs });
      assert.equal(callsOf(fake, 'waitForDevice')[0]!.signal.aborted, true, 'the device wait was abandoned');
      assert.equal(clock.pendingTimers, 0);
      // A device plugged in afterwards changes nothing.
      fake.connect();
      await settle();
      assert.equal(callsOf(fake, 'accountPublicNode').length, 0);
      assert.deepEqual(await enabledTickers(s), []);
    } finally {
      await s.stop();
    }
  });

  test('no PIN: TaskTimedOut at the PIN timeout, counted from the PIN request only', async () => {
    const { s, fake, clock } = await hwStack(new FakeHardwareWallet({ pin: PIN }));
    try {
      const id = await startTask(s, hardwareParams(s));
      await untilStatus(s, id, 'InProgress', 'WaitingForHardwareToConnect');
      clock.advance(200_000); // the connect wait used up most of its own budget
      fake.connect();
      await untilStatus(s, id, 'UserActionRequired', 'EnterHardwarePin');
      clock.advance(TIMEOUTS.pinMs - 1);
      await settle();
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'EnterHardwarePin');
      const keyCall = callsOf(fake, 'accountPublicNode')[0]!;
      assert.equal(keyCall.signal.aborted, false);

      clock.advance(1);
      const { result } = await untilFinished(s, id);
      assert.equal(result.details.error_type, 'TaskTimedOut');
      assert.deepEqual(result.details.error_data, { duration_ms: TIMEOUTS.pinMs });
      assert.equal(keyCall.signal.aborted, true, 'the device call was aborted');
      assertV2Error(await enterPin(s, id, PIN), 500, 'InternalError');
      assert.equal(fake.pinsChecked, 0);
    } finally {
      await s.stop();
    }
  });

  test('not confirmed on the device: TaskTimedOut at the confirm timeout, counted from the PIN; the device call aborted, the ticker free', async () => {
    const { s, fake, clock } = await hwStack(new FakeHardwareWallet({ pin: PIN, connected: true, holdForButton: true }));
    try {
      const id = await startTask(s, hardwareParams(s));
      await untilStatus(s, id, 'UserActionRequired', 'EnterHardwarePin');
      clock.advance(TIMEOUTS.pinMs - 1); // the PIN wait used up all but a millisecond of its own budget
      await enterPin(s, id, PIN);
      await untilStatus(s, id, 'InProgress', 'FollowHwDeviceInstructions');
      clock.advance(TIMEOUTS.confirmMs - 1);
      await settle();
      assert.equal((await taskStatus(s, id, false)).body.result.details, 'FollowHwDeviceInstructions');
      const keyCall = callsOf(fake, 'accountPublicNode')[0]!;
      assert.equal(keyCall.signal.aborted, false);

      clock.advance(1);
      const { result } = await untilFinished(s, id);
      assert.equal(result.details.error_type, 'TaskTimedOut');
      assert.deepEqual(result.details.error_data, { duration_ms: TIMEOUTS.confirmMs });
      assert.equal(keyCall.signal.aborted, true, 'the device call was aborted');
      assert.equal(clock.pendingTimers, 0);
      fake.confirm(); // a confirmation afterwards changes nothing
      await settle();
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal(describeEvents(await taskEvents(s, id)).at(-1), 'TaskFailed');
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200, 'ETH can be activated');
    } finally {
      await s.stop();
    }
  });

  test('cancel while waiting for the device and while awaiting the PIN: success, device call aborted', async () => {
    const { s, fake, clock } = await hwStack(new FakeHardwareWallet({ pin: PIN }));
    try {
      const waiting = await startTask(s, hardwareParams(s));
      await untilStatus(s, waiting, 'InProgress', 'WaitingForHardwareToConnect');
      assert.equal((await cancelTask(s, waiting)).body.result, 'success');
      assert.equal(callsOf(fake, 'waitForDevice')[0]!.signal.aborted, true);
      assertV2Error(await taskStatus(s, waiting), 400, 'NoSuchTask', waiting);
      assert.deepEqual(describeEvents(await taskEvents(s, waiting)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/WaitingForHardwareToConnect',
        'TaskCancelled',
      ]);

      const awaiting = await startTask(s, hardwareParams(s)); // the ticker is free at once
      await untilStatus(s, awaiting, 'InProgress', 'WaitingForHardwareToConnect');
      fake.connect();
      await untilStatus(s, awaiting, 'UserActionRequired', 'EnterHardwarePin');
      assert.equal((await cancelTask(s, awaiting)).body.result, 'success');
      assert.equal(callsOf(fake, 'accountPublicNode')[0]!.signal.aborted, true);
      assertV2Error(await enterPin(s, awaiting, PIN), 400, 'NoSuchTask', awaiting);
      assertV2Error(await cancelTask(s, awaiting), 404, 'NoSuchTask', awaiting);
      assert.equal(fake.pinsChecked, 0);

      // Their timers went with them: much later, nothing more is recorded.
      const before = (await taskEvents(s, awaiting)).length;
      clock.advance(10 * TIMEOUTS.pinMs);
      await settle();
      assert.equal((await taskEvents(s, awaiting)).length, before);
      assert.equal(describeEvents(await taskEvents(s, awaiting)).at(-1), 'TaskCancelled');
      assert.deepEqual(await enabledTickers(s), []);
      assert.equal((await s.v2('enable_eth_with_tokens', enableEthParams(s, []))).status, 200, 'ETH can be activated');
    } finally {
      await s.stop();
    }
  });

  test('an unlocked device that asks for a button press: FollowHwDeviceInstructions once, then Ok', async () => {
    const { s, fake } = await hwStack(new FakeHardwareWallet({ connected: true, holdForButton: true }));
    try {
      const id = await startTask(s, hardwareParams(s, []));
      await untilStatus(s, id, 'InProgress', 'FollowHwDeviceInstructions');
      assertV2Error(await enterPin(s, id, PIN), 500, 'InternalError');
      fake.confirm();
      assert.equal((await untilFinished(s, id)).result.status, 'Ok');
      assert.deepEqual(describeEvents(await taskEvents(s, id)), [
        'TaskCreated',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/WaitingForHardwareToConnect',
        'TaskProgressed:InProgress/ActivatingCoin',
        'TaskProgressed:InProgress/FollowHwDeviceInstructions',
        'TaskProgressed:InProgress/RequestingWalletBalance',
        'TaskProgressed:InProgress/Finishing',
        'TaskSucceeded',
      ]);
    } finally {
      await s.stop();
    }
  });

  test('the device\'s account is scanned like a mnemonic\'s: path_to_address account 1, scan with gap_limit 3 finds address 2 (ETH and the token), from one account node', async () => {
    const { s, fake } = await hwStack(new FakeHardwareWallet({ connected: true }));
    try {
      const id = await startTask(s, hardwareParams(s, ['USDT-ERC20'], { path_to_address: { account_id: 1, chain: 'External', address_id: 0 }, scan_policy: 'scan', gap_limit: 3 }));
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      assert.deepEqual(callsOf(fake, 'accountPublicNode').map((c) => [c.path, c.protocol]), [["m/44'/60'/1'", 'ethereum']]);
      assert.equal(callsOf(fake, 'ethereumPublicKey').length, 0);
      const [account] = result.details.wallet_balance.accounts;
      assert.equal(account.account_index, 1);
      assert.equal(account.derivation_path, "m/44'/60'/1'");
      const expected = [0, 1, 2].map((i) => HDNodeWallet.fromPhrase(FAKE_DEVICE_MNEMONIC, undefined, `m/44'/60'/1'/0/${i}`).address);
      assert.deepEqual(account.addresses.map((a: any) => [a.address, a.derivation_path]), expected.map((a, i) => [a, `m/44'/60'/1'/0/${i}`]));
      assert.deepEqual(account.addresses[2].balance, { ETH: { spendable: '0.000000000000000007', unspendable: '0' }, 'USDT-ERC20': { spendable: '0.000005', unspendable: '0' } });
    } finally {
      await s.stop();
    }
  });

  test('without balances the HD result has no balance maps; a coin without derivation_path fails the task', async () => {
    const { s } = await hwStack(new FakeHardwareWallet({ connected: true }));
    try {
      const id = await startTask(s, hardwareParams(s, ['USDT-ERC20'], { get_balances: false }));
      const { result } = await untilFinished(s, id);
      assert.equal(result.status, 'Ok', JSON.stringify(result));
      const [account] = result.details.wallet_balance.accounts;
      assert.equal('total_balance' in account, false);
      assert.deepEqual(account.addresses, [{ address: DEVICE_ADDRESS, derivation_path: "m/44'/60'/0'/0/0", chain: 'External' }]);

      const init = await initTask(s, hardwareParams(s, [], { ticker: 'NOPATH' }));
      assert.equal(init.status, 200);
      const failed = await untilFinished(s, init.body.result.task_id);
      assert.equal(failed.result.status, 'Error');
      assert.equal(failed.result.details.error_type, 'InvalidRequest');
      assert.match(failed.result.details.error, /derivation_path/);
    } finally {
      await s.stop();
    }
  });
});

function assertV2Error(answer: { status: number; body: any }, status: number, errorType: string, data?: unknown): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error_type, errorType);
  if (data !== undefined) assert.deepEqual(answer.body.error_data, data);
}
