import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise } from 'xstate';
import { ManualClock } from '../devnet/testing/manualClock.ts';
// The task manager hands the machine its clock through this adapter; the test does the same.
import { xstateClock } from '../actors/xstateClock.ts';
import { activationTaskMachine, TaskWork, type AccountWorkResult } from './activationTask.machine.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent, NewAddressRead } from '../spec/events.ts';

/**
 * The task machine running `task::get_new_address` and `task::scan_for_new_addresses`
 * (TaskWork.NewAddress, TaskWork.ScanAddresses): one invoked work on the account that the test
 * settles; spec 3.2 holds as for every kind.
 */

const TASK_ID = 9;
const address: NewAddressRead = { address: 'LTC1', derivationPath: "m/44'/2'/0'/0/1", chain: 'External', addressIndex: 1, balances: { LTC: { spendable: '0', unspendable: '0' } } };

function task(work: typeof TaskWork.NewAddress | typeof TaskWork.ScanAddresses) {
  const runs: { signal: AbortSignal; resolve(r: AccountWorkResult): void; reject(e: unknown): void }[] = [];
  const machine = activationTaskMachine.provide({
    actors: {
      workOnAccount: fromPromise<AccountWorkResult, { taskId: number }>(({ signal }) => new Promise((resolve, reject) => runs.push({ signal, resolve, reject }))),
    },
  });
  const timeouts = { connectMs: 1, pinMs: 1, confirmMs: 1 };
  const actor = createActor(machine, { input: { taskId: TASK_ID, ticker: 'LTC', timeouts, work }, clock: xstateClock(new ManualClock()) });
  const emitted: DomainEvent[] = [];
  actor.on('*', (e) => emitted.push(e as DomainEvent));
  actor.start();
  return { actor, runs, emitted };
}
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('activationTask machine, HD address work', () => {
  test('Given a new get_new_address task, When it starts, Then it reports Preparing and runs its work once', () => {
    const t = task(TaskWork.NewAddress);
    assert.equal(t.actor.getSnapshot().value, 'workingOnAccount');
    assert.deepEqual(t.emitted, [{ type: 'TaskProgressed', data: { taskId: TASK_ID, status: 'InProgress', details: 'Preparing' } }]);
    assert.equal(t.runs.length, 1);
  });

  test('Given a new scan task, When it starts, Then it reports InProgress (the reference has one in-progress status)', () => {
    const t = task(TaskWork.ScanAddresses);
    assert.deepEqual(t.emitted, [{ type: 'TaskProgressed', data: { taskId: TASK_ID, status: 'InProgress', details: 'InProgress' } }]);
  });

  test('When the new address is read and recorded, Then it ends Ok with TaskSucceeded carrying the address', async () => {
    const t = task(TaskWork.NewAddress);
    t.runs[0]!.resolve({ newAddress: address });
    await settle();
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskSucceeded', data: { taskId: TASK_ID, newAddress: address } });
    assert.deepEqual(t.actor.getSnapshot().output, { ok: true, newAddress: address });
  });

  test('When the scan finds addresses, Then TaskSucceeded carries them', async () => {
    const t = task(TaskWork.ScanAddresses);
    const scannedAddresses = { accountIndex: 0, accountPath: "m/44'/2'/0'", addresses: [address] };
    t.runs[0]!.resolve({ scannedAddresses });
    await settle();
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskSucceeded', data: { taskId: TASK_ID, scannedAddresses } });
  });

  test('When the gap rule refuses, Then it ends Error with the refusal', async () => {
    const t = task(TaskWork.NewAddress);
    t.runs[0]!.reject(new ActivationError(ErrorType.EmptyAddressesLimitReached, 'Addresses limit reached', { gap_limit: 20 }));
    await settle();
    assert.deepEqual(t.emitted.at(-1), {
      type: 'TaskFailed',
      data: { taskId: TASK_ID, error: { errorType: 'EmptyAddressesLimitReached', message: 'Addresses limit reached', data: { gap_limit: 20 } } },
    });
  });

  test('When it is cancelled while working, Then the work is aborted and TaskCancelled is the last event', async () => {
    const t = task(TaskWork.ScanAddresses);
    t.actor.send({ type: 'CANCEL' });
    await settle();
    assert.equal(t.runs[0]!.signal.aborted, true);
    assert.deepEqual(t.emitted.at(-1), { type: 'TaskCancelled', data: { taskId: TASK_ID } });
  });
});
