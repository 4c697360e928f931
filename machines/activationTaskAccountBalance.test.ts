import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise } from 'xstate';
import { ManualClock } from '../devnet/testing/manualClock.ts';
// The task manager hands the machine its clock through this adapter; the test does the same.
import { xstateClock } from '../actors/xstateClock.ts';
import { activationTaskMachine, TaskWork, type AccountWorkResult } from './activationTask.machine.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { AccountBalanceRead, DomainEvent } from '../spec/events.ts';

/**
 * The task machine running a `task::account_balance` (TaskWork.AccountBalance): no planning,
 * device or activation, one invoked read that the test settles; spec 3.2 holds as for every kind.
 */

const TASK_ID = 3;
const read: AccountBalanceRead = {
  accountIndex: 0,
  accountPath: "m/44'/60'/0'",
  totalBalances: { ETH: { spendable: '1', unspendable: '0' } },
  addresses: [{ address: '0xA0', derivationPath: "m/44'/60'/0'/0/0", chain: 'External', balances: { ETH: { spendable: '1', unspendable: '0' } } }],
};

function task() {
  const reads: { signal: AbortSignal; resolve(r: AccountBalanceRead): void; reject(e: unknown): void }[] = [];
  const invoked: string[] = [];
  const never = (name: string) => fromPromise(async () => void invoked.push(name));
  const machine = activationTaskMachine.provide({
    actors: {
      planActivation: never('planActivation') as never,
      waitForDevice: never('waitForDevice') as never,
      workOnAccount: fromPromise<AccountWorkResult, { taskId: number }>(({ signal }) => new Promise<AccountBalanceRead>((resolve, reject) => reads.push({ signal, resolve, reject })).then((accountBalance) => ({ accountBalance }))),
    },
  });
  const timeouts = { connectMs: 1, pinMs: 1, confirmMs: 1 };
  const actor = createActor(machine, { input: { taskId: TASK_ID, ticker: 'ETH', timeouts, work: TaskWork.AccountBalance }, clock: xstateClock(new ManualClock()) });
  const emitted: DomainEvent[] = [];
  actor.on('*', (e) => emitted.push(e as DomainEvent));
  actor.start();
  return { actor, reads, invoked, emitted };
}
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('activationTask machine, account balance work', () => {
  test('Given a new account balance task, When it starts, Then it reports RequestingAccountBalance and reads, planning nothing', () => {
    const t = task();
    assert.equal(t.actor.getSnapshot().value, 'workingOnAccount');
    assert.deepEqual(t.emitted, [{ type: 'TaskProgressed', data: { taskId: TASK_ID, status: 'InProgress', details: 'RequestingAccountBalance' } }]);
    assert.equal(t.reads.length, 1);
    assert.deepEqual(t.invoked, []);
  });

  test('When the read answers, Then it ends Ok with TaskSucceeded carrying the read', async () => {
    const t = task();
    t.reads[0]!.resolve(read);
    await settle();
    assert.equal(t.actor.getSnapshot().status, 'done');
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskSucceeded', data: { taskId: TASK_ID, accountBalance: read } });
    assert.deepEqual(t.actor.getSnapshot().output, { ok: true, accountBalance: read });
  });

  test('When the read fails, Then it ends Error with TaskFailed carrying the error', async () => {
    const t = task();
    t.reads[0]!.reject(new ActivationError(ErrorType.UnknownAccount, "HD account '2' is not activated", { account_id: 2 }));
    await settle();
    assert.deepEqual(t.emitted.at(-1), {
      type: 'TaskFailed',
      data: { taskId: TASK_ID, error: { errorType: 'UnknownAccount', message: "HD account '2' is not activated", data: { account_id: 2 } } },
    });
  });

  test('When it is cancelled while reading, Then the read is aborted and TaskCancelled is the last event', async () => {
    const t = task();
    t.actor.send({ type: 'CANCEL' });
    await settle();
    assert.equal(t.reads[0]!.signal.aborted, true);
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskCancelled', data: { taskId: TASK_ID } });
    t.reads[0]!.resolve(read);
    await settle();
    assert.equal(t.emitted.filter((e) => e.type === 'TaskSucceeded').length, 0);
  });
});
