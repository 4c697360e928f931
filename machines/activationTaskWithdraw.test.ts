import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromCallback, fromPromise, type AnyEventObject } from 'xstate';
import { ManualClock } from '../devnet/testing/manualClock.ts';
// The task manager hands the machine its clock through this adapter; the test does the same.
import { xstateClock } from '../actors/xstateClock.ts';
import { activationTaskMachine, TaskWork } from './activationTask.machine.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent, WithdrawalSummary } from '../spec/events.ts';

/**
 * The task machine running a `task::withdraw` (TaskWork.Withdraw): one invoked withdrawal that the
 * test drives (its reports, the PIN it receives); spec 3.2 holds as for every kind, and the device
 * waits have the same time limits as an activation's.
 */

const TASK_ID = 9;
const TIMEOUTS = { connectMs: 1_000, pinMs: 2_000, confirmMs: 3_000 };
const summary: WithdrawalSummary = {
  coin: 'ETH',
  txHex: 'f86c',
  txHash: 'ab',
  from: ['0xA'],
  to: ['0xB'],
  totalAmount: '1',
  spentByMe: '1.001',
  receivedByMe: '0',
  myBalanceChange: '-1.001',
  feeDetails: { type: 'Eth', coin: 'ETH', gas: 21000, gas_price: '0.00000005', max_fee_per_gas: null, max_priority_fee_per_gas: null, total_fee: '0.001' },
  timestamp: 1,
};

function task() {
  const clock = new ManualClock();
  const withdrawal: { report?: (e: AnyEventObject) => void; received: AnyEventObject[]; stopped: boolean } = { received: [], stopped: false };
  const machine = activationTaskMachine.provide({
    actors: {
      planActivation: fromPromise(async () => assert.fail('a withdrawal plans nothing')) as never,
      withdraw: fromCallback(({ sendBack, receive }) => {
        withdrawal.report = sendBack;
        receive((e) => withdrawal.received.push(e));
        return () => void (withdrawal.stopped = true);
      }),
    },
  });
  const actor = createActor(machine, { input: { taskId: TASK_ID, ticker: 'ETH', timeouts: TIMEOUTS, work: TaskWork.Withdraw }, clock: xstateClock(clock) });
  const emitted: DomainEvent[] = [];
  actor.on('*', (e) => emitted.push(e as DomainEvent));
  actor.start();
  const progress = () => emitted.filter((e) => e.type === 'TaskProgressed').map((e) => `${e.data.status}:${e.data.details}`);
  return { actor, clock, withdrawal, emitted, progress };
}

describe('activationTask machine, withdraw work', () => {
  test('Given a new withdraw task, When it starts, Then it reports Preparing and invokes the withdrawal', () => {
    const t = task();
    assert.deepEqual(t.actor.getSnapshot().value, { withdrawing: 'preparing' });
    assert.deepEqual(t.progress(), ['InProgress:Preparing']);
    assert.ok(t.withdrawal.report);
  });

  test('Given a software key, When it generates and signs, Then GeneratingTransaction, Finishing, and TaskSucceeded with the withdrawal', () => {
    const t = task();
    t.withdrawal.report!({ type: 'GENERATING' });
    t.withdrawal.report!({ type: 'SIGNED', withdrawal: summary });
    assert.deepEqual(t.progress(), ['InProgress:Preparing', 'InProgress:GeneratingTransaction', 'InProgress:Finishing']);
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskSucceeded', data: { taskId: TASK_ID, withdrawal: summary } });
    assert.deepEqual(t.actor.getSnapshot().output, { ok: true, withdrawal: summary });
  });

  test('Given the device asks its PIN, When the PIN is entered, Then it goes to the withdrawal (not the log) and the task follows the device', () => {
    const t = task();
    t.withdrawal.report!({ type: 'GENERATING' });
    t.withdrawal.report!({ type: 'PIN_REQUESTED' });
    assert.ok(t.actor.getSnapshot().hasTag('awaitingPin'));
    t.actor.send({ type: 'PIN_ENTERED', pin: '1234' });
    assert.deepEqual(t.withdrawal.received, [{ type: 'PIN', pin: '1234' }]);
    t.withdrawal.report!({ type: 'BUTTON_REQUESTED' });
    assert.deepEqual(t.progress().slice(-2), ['UserActionRequired:EnterHardwarePin', 'InProgress:FollowHwDeviceInstructions']);
    assert.ok(t.emitted.some((e) => e.type === 'HardwarePinEntered'));
    assert.equal(JSON.stringify(t.emitted).includes('1234'), false);
  });

  test('Given the device awaits a confirmation, When confirmMs passes, Then TaskTimedOut and the withdrawal is stopped', () => {
    const t = task();
    t.withdrawal.report!({ type: 'BUTTON_REQUESTED' });
    t.clock.advance(TIMEOUTS.confirmMs - 1);
    assert.equal(t.actor.getSnapshot().status, 'active');
    t.clock.advance(1);
    assert.equal(t.emitted.at(-1)?.type, 'TaskFailed');
    assert.equal((t.emitted.at(-1) as { data: { error: { errorType: string } } }).data.error.errorType, 'TaskTimedOut');
    assert.equal(t.withdrawal.stopped, true);
  });

  test('Given the PIN is awaited, When pinMs passes, Then TaskTimedOut', () => {
    const t = task();
    t.withdrawal.report!({ type: 'PIN_REQUESTED' });
    t.clock.advance(TIMEOUTS.pinMs);
    assert.match(JSON.stringify(t.emitted.at(-1)), /the device PIN \(2000 ms\)/);
  });

  test('When the withdrawal fails, Then TaskFailed carries its error; When cancelled, Then TaskCancelled and it is stopped', () => {
    const failed = task();
    failed.withdrawal.report!({ type: 'WITHDRAWAL_FAILED', error: new ActivationError(ErrorType.InvalidAddress, 'Invalid address checksum', 'Invalid address checksum') });
    assert.deepEqual(failed.emitted.at(-1), {
      type: 'TaskFailed',
      data: { taskId: TASK_ID, error: { errorType: 'InvalidAddress', message: 'Invalid address checksum', data: 'Invalid address checksum' } },
    });
    const cancelled = task();
    cancelled.actor.send({ type: 'CANCEL' });
    assert.deepEqual(cancelled.emitted.at(-1), { type: 'TaskCancelled', data: { taskId: TASK_ID } });
    assert.equal(cancelled.withdrawal.stopped, true);
  });
});
