import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromCallback, fromPromise, type AnyEventObject } from 'xstate';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { fakePlan } from '../devnet/testing/fixtures.ts';
// The task manager hands the machine its clock through this adapter; the test does the same.
import { xstateClock } from '../actors/xstateClock.ts';
import { activationTaskMachine, type ActivationTaskEvent, type PlannedTask } from './activationTask.machine.ts';
import { ActivationVia, ChainFamilyId, type ActivationPlan, type ActivationSummary, type ResolvedKey } from './activation.types.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';

/**
 * The `task::enable_eth` task machine on its own (spec 3.2). Its work comes from four invoked
 * actors that the test stands in for: planning and waiting for the device are promises the test
 * settles, the device session and the coin activation are callbacks the test speaks for. Each stub
 * records an AbortSignal that is aborted when the machine stops it, so leaving a state can be seen.
 * Time is a manual clock: a timeout fires only when the test moves it.
 */

const TASK_ID = 7;
const TIMEOUTS = { connectMs: 30_000, pinMs: 60_000, confirmMs: 90_000 };
const PATH = "m/44'/60'/0'/0/0";

/** A promise actor's invocation, settled by the test. */
interface PromiseCall<I, O> {
  readonly input: I;
  readonly signal: AbortSignal;
  resolve(output: O): void;
  reject(error: unknown): void;
}

/** A callback actor's invocation: what it was given, what it received, how it reports. */
interface CallbackCall<I> {
  readonly input: I;
  readonly signal: AbortSignal;
  readonly received: AnyEventObject[];
  report(event: ActivationTaskEvent): void;
}

function promiseStub<I, O>(calls: PromiseCall<I, O>[]) {
  return fromPromise<O, I>(({ input, signal }) => new Promise<O>((resolve, reject) => calls.push({ input, signal, resolve, reject })));
}

function callbackStub<I>(calls: CallbackCall<I>[]) {
  return fromCallback<AnyEventObject, I>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const received: AnyEventObject[] = [];
    receive((event) => received.push(event));
    calls.push({ input, signal: controller.signal, received, report: (event) => sendBack(event) });
    return () => controller.abort();
  });
}

/** Lets settled stub promises reach the machine (promise callbacks run before the next macrotask). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function task() {
  const clock = new ManualClock();
  const plans: PromiseCall<{ taskId: number }, PlannedTask>[] = [];
  const devices: PromiseCall<{ taskId: number }, unknown>[] = [];
  const sessions: CallbackCall<{ path: string }>[] = [];
  const activations: CallbackCall<{ plan: ActivationPlan }>[] = [];
  const machine = activationTaskMachine.provide({
    actors: {
      planActivation: promiseStub(plans),
      waitForDevice: promiseStub(devices),
      deviceSession: callbackStub(sessions),
      activateCoin: callbackStub(activations),
    },
  });
  const actor = createActor(machine, { input: { taskId: TASK_ID, ticker: 'ETH', timeouts: TIMEOUTS }, clock: xstateClock(clock) });
  const emitted: DomainEvent[] = [];
  actor.on('*', (event) => emitted.push(event as DomainEvent));
  actor.start();

  const only = <T>(calls: T[], what: string): T => {
    assert.equal(calls.length, 1, `${what} invoked once`);
    return calls[0]!;
  };
  /** Events emitted since the last call (each step's events, in order). */
  let seen = 0;
  const newEvents = (): DomainEvent[] => emitted.slice(seen, (seen = emitted.length));
  return {
    actor,
    clock,
    plans,
    devices,
    sessions,
    activations,
    emitted,
    newEvents,
    state: () => actor.getSnapshot().value,
    plan: () => only(plans, 'planActivation'),
    device: () => only(devices, 'waitForDevice'),
    session: () => only(sessions, 'deviceSession'),
    activation: () => only(activations, 'activateCoin'),
  };
}
type Task = ReturnType<typeof task>;

const plan: ActivationPlan = fakePlan('ETH', ['USDT-ERC20'], { via: ActivationVia.EnableEthTask });
const key: ResolvedKey = { uncompressedHex: `04${'ef'.repeat(64)}`, address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', derivationPath: PATH };
const summary: ActivationSummary = {
  ticker: 'ETH',
  family: 'evm',
  address: key.address,
  pubkey: key.uncompressedHex,
  derivationMethod: 'Iguana',
  currentBlock: 42,
  balance: { spendable: '1.5', unspendable: '0' },
  tokens: [],
  attempt: 1,
};

const progress = (status: 'InProgress' | 'UserActionRequired', details: string): DomainEvent => ({
  type: 'TaskProgressed',
  data: { taskId: TASK_ID, status, details },
});
const cancelled: DomainEvent = { type: 'TaskCancelled', data: { taskId: TASK_ID } };
/** The `TaskFailed` of a wait that timed out: what it waited for and how long. */
const timedOut = (waitingFor: string, ms: number): DomainEvent => ({
  type: 'TaskFailed',
  data: {
    taskId: TASK_ID,
    error: { errorType: 'TaskTimedOut', message: `Initialization task has timed out waiting for ${waitingFor} (${ms} ms)`, data: { duration_ms: ms } },
  },
});

/** Given a software-key task, planned: it is reading the chain. */
async function softwareTaskActivating(): Promise<Task> {
  const t = task();
  t.plan().resolve({ plan });
  await settle();
  return t;
}

/** Given a hardware-key task, planned: it waits for the device. */
async function hardwareTaskWaiting(): Promise<Task> {
  const t = task();
  t.plan().resolve({ plan, device: { path: PATH } });
  await settle();
  return t;
}

/** Given a hardware task whose device is connected: the device session reads the key. */
async function hardwareTaskReadingKey(): Promise<Task> {
  const t = await hardwareTaskWaiting();
  t.device().resolve(undefined);
  await settle();
  return t;
}

/** Given a hardware task whose device asks for the PIN. */
async function hardwareTaskAwaitingPin(): Promise<Task> {
  const t = await hardwareTaskReadingKey();
  t.session().report({ type: 'PIN_REQUESTED' });
  return t;
}

describe('activationTask machine', () => {
  describe('Given a new task', () => {
    test('when it starts, then it plans, reports ActivatingCoin and invokes nothing else', () => {
      const t = task();

      assert.equal(t.state(), 'planning');
      assert.deepEqual(t.plan().input, { taskId: TASK_ID });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'ActivatingCoin')]);
      assert.equal(t.devices.length + t.sessions.length + t.activations.length, 0);
      assert.equal(t.clock.pendingTimers, 0, 'no timeout runs while planning');
    });

    test('when planning fails, then it ends Error with TaskFailed carrying the error, and activates nothing', async () => {
      const t = task();
      t.newEvents();

      t.plan().reject(new ActivationError(ErrorType.CoinCreationError, "Coin 'ETH' is not in the coins file", 'ETH'));
      await settle();

      assert.equal(t.state(), 'failed');
      const error = { errorType: 'CoinCreationError', message: "Coin 'ETH' is not in the coins file", data: 'ETH' };
      assert.deepEqual(t.newEvents(), [{ type: 'TaskFailed', data: { taskId: TASK_ID, error } }]);
      assert.deepEqual(t.actor.getSnapshot().output, { ok: false, error });
      assert.equal(t.activations.length, 0);
    });
  });

  describe('Given a software-key task (ContextPrivKey)', () => {
    test('when planned, then it activates the plan as is and reports RequestingWalletBalance', async () => {
      const t = task();
      t.newEvents();

      t.plan().resolve({ plan });
      await settle();

      assert.deepEqual(t.state(), { activating: 'requestingWalletBalance' });
      assert.deepEqual(t.activation().input, { plan }, 'no key attached: the key provider supplies it');
      assert.equal(t.devices.length, 0, 'no device is waited for');
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'RequestingWalletBalance')]);
    });

    test('when the chain is read and the activation completes, then it reports Finishing and ends Ok with TaskSucceeded', async () => {
      const t = await softwareTaskActivating();
      t.newEvents();

      t.activation().report({ type: 'CHAIN_READ' });

      assert.deepEqual(t.state(), { activating: 'finishing' });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'Finishing')]);

      t.activation().report({ type: 'ACTIVATED', summary });

      assert.equal(t.state(), 'ok');
      assert.equal(t.actor.getSnapshot().status, 'done');
      assert.deepEqual(t.newEvents(), [{ type: 'TaskSucceeded', data: { taskId: TASK_ID, activation: summary } }]);
      assert.deepEqual(t.actor.getSnapshot().output, { ok: true, result: summary });
    });

    test('when the activation fails with an activation error, then it ends Error with that error in TaskFailed', async () => {
      const t = await softwareTaskActivating();
      t.newEvents();

      t.activation().report({ type: 'ACTIVATION_FAILED', error: new ActivationError(ErrorType.CoinCreationError, 'all 1 node(s) failed', 'all 1 node(s) failed') });

      assert.equal(t.state(), 'failed');
      const error = { errorType: 'CoinCreationError', message: 'all 1 node(s) failed', data: 'all 1 node(s) failed' };
      assert.deepEqual(t.newEvents(), [{ type: 'TaskFailed', data: { taskId: TASK_ID, error } }]);
      assert.deepEqual(t.actor.getSnapshot().output, { ok: false, error });
    });

    test('when the activation fails with something else, then TaskFailed says InternalError with its message only', async () => {
      const t = await softwareTaskActivating();
      t.newEvents();

      t.activation().report({ type: 'ACTIVATION_FAILED', error: new TypeError('boom') });

      assert.deepEqual(t.newEvents(), [{ type: 'TaskFailed', data: { taskId: TASK_ID, error: { errorType: 'InternalError', message: 'boom' } } }]);
    });
  });

  describe('Given a hardware-key task', () => {
    test('when planned, then it waits for the device: WaitingForHardwareToConnect, with the connect timeout running', async () => {
      const t = task();
      t.newEvents();

      t.plan().resolve({ plan, device: { path: PATH } });
      await settle();

      assert.equal(t.state(), 'waitingForDevice');
      assert.deepEqual(t.device().input, { taskId: TASK_ID });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'WaitingForHardwareToConnect')]);
      assert.equal(t.clock.pendingTimers, 1);
      assert.equal(t.activations.length, 0, 'no chain work before the key is read');
    });

    test('when the device connects, then the device session reads the key at the planned path (ActivatingCoin); the device has confirmMs to answer', async () => {
      const t = await hardwareTaskWaiting();
      t.newEvents();

      t.device().resolve(undefined);
      await settle();

      assert.deepEqual(t.state(), { usingDevice: 'readingKey' });
      assert.deepEqual(t.session().input, { path: PATH });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'ActivatingCoin')]);
      assert.equal(t.clock.pendingTimers, 1, 'the connect timeout is off, the answer timeout runs');
    });

    test('when the device asks for the PIN, then the task is UserActionRequired (EnterHardwarePin) with the PIN timeout running', async () => {
      const t = await hardwareTaskReadingKey();
      t.newEvents();

      t.session().report({ type: 'PIN_REQUESTED' });

      assert.deepEqual(t.state(), { usingDevice: 'awaitingPin' });
      assert.deepEqual(t.newEvents(), [progress('UserActionRequired', 'EnterHardwarePin')]);
      assert.equal(t.actor.getSnapshot().can({ type: 'PIN_ENTERED', pin: '1234' }), true);
      assert.equal(t.clock.pendingTimers, 1);
    });

    test('when the PIN is entered, then it goes to the device (never into an event) and the task follows the device instructions', async () => {
      const t = await hardwareTaskAwaitingPin();
      t.newEvents();

      t.actor.send({ type: 'PIN_ENTERED', pin: '4821' });

      assert.deepEqual(t.session().received, [{ type: 'PIN', pin: '4821' }]);
      assert.deepEqual(t.state(), { usingDevice: 'followingInstructions' });
      assert.deepEqual(t.newEvents(), [{ type: 'HardwarePinEntered', data: { taskId: TASK_ID } }, progress('InProgress', 'FollowHwDeviceInstructions')]);
      assert.doesNotMatch(JSON.stringify(t.emitted), /4821/);
      assert.equal(t.clock.pendingTimers, 1, 'the PIN timeout is off, the confirmation timeout runs');
      assert.equal(t.session().signal.aborted, false, 'the same device session goes on');
    });

    test('when the device asks for confirmation (no PIN), then FollowHwDeviceInstructions is reported once however often it asks', async () => {
      const t = await hardwareTaskReadingKey();
      t.newEvents();

      t.session().report({ type: 'BUTTON_REQUESTED' });
      t.session().report({ type: 'BUTTON_REQUESTED' });

      assert.deepEqual(t.state(), { usingDevice: 'followingInstructions' });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'FollowHwDeviceInstructions')]);
    });

    test('when the key is read after PIN and confirmation, then the device session ends and the plan is activated with that key, to Ok', async () => {
      const t = await hardwareTaskAwaitingPin();
      t.actor.send({ type: 'PIN_ENTERED', pin: '4821' });
      t.session().report({ type: 'BUTTON_REQUESTED' });
      t.newEvents();

      t.session().report({ type: 'KEY_READ', key });

      assert.equal(t.session().signal.aborted, true, 'the device session is stopped once it has the key');
      assert.deepEqual(t.state(), { activating: 'requestingWalletBalance' });
      assert.deepEqual(t.activation().input, { plan: { ...plan, key } });
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'RequestingWalletBalance')]);

      t.activation().report({ type: 'CHAIN_READ' });
      t.activation().report({ type: 'ACTIVATED', summary });

      assert.equal(t.state(), 'ok');
      assert.deepEqual(t.newEvents(), [progress('InProgress', 'Finishing'), { type: 'TaskSucceeded', data: { taskId: TASK_ID, activation: summary } }]);
      assert.deepEqual(
        t.emitted.map((e) => (e.type === 'TaskProgressed' ? e.data.details : e.type)),
        ['ActivatingCoin', 'WaitingForHardwareToConnect', 'ActivatingCoin', 'EnterHardwarePin', 'HardwarePinEntered', 'FollowHwDeviceInstructions', 'RequestingWalletBalance', 'Finishing', 'TaskSucceeded'],
        'the whole hardware run, step by step',
      );
    });

    test('when a wrong PIN is entered, then the device fails and the task ends Error with HwError WrongPin', async () => {
      const t = await hardwareTaskAwaitingPin();
      t.actor.send({ type: 'PIN_ENTERED', pin: '0000' });
      t.newEvents();

      t.session().report({ type: 'DEVICE_FAILED', error: new ActivationError(ErrorType.HwError, 'Invalid PIN entered on the device', { kind: 'WrongPin' }) });

      assert.equal(t.state(), 'failed');
      const error = { errorType: 'HwError', message: 'Invalid PIN entered on the device', data: { kind: 'WrongPin' } };
      assert.deepEqual(t.newEvents(), [{ type: 'TaskFailed', data: { taskId: TASK_ID, error } }]);
      assert.deepEqual(t.actor.getSnapshot().output, { ok: false, error });
      assert.equal(t.session().signal.aborted, true);
      assert.equal(t.activations.length, 0);
    });

    test('when waiting for the device fails, then the task ends Error with that error', async () => {
      const t = await hardwareTaskWaiting();
      t.newEvents();

      t.device().reject(new ActivationError(ErrorType.HwError, 'No Trezor device found', { kind: 'NoDevice' }));
      await settle();

      assert.equal(t.state(), 'failed');
      assert.deepEqual(t.newEvents(), [
        { type: 'TaskFailed', data: { taskId: TASK_ID, error: { errorType: 'HwError', message: 'No Trezor device found', data: { kind: 'NoDevice' } } } },
      ]);
      assert.equal(t.clock.pendingTimers, 0, 'the connect timeout is off');
    });
  });

  describe('Given a hardware task and the manual clock', () => {
    test('when the device does not connect within connectMs, then the task times out (TaskTimedOut) and stops waiting', async () => {
      const t = await hardwareTaskWaiting();
      t.newEvents();

      t.clock.advance(TIMEOUTS.connectMs - 1);
      assert.equal(t.state(), 'waitingForDevice', 'not a millisecond early');
      assert.deepEqual(t.newEvents(), []);

      t.clock.advance(1);

      assert.equal(t.state(), 'failed');
      assert.equal(t.device().signal.aborted, true, 'the wait for the device is aborted');
      assert.deepEqual(t.newEvents(), [timedOut('the device to connect', 30_000)]);
    });

    test('when the PIN is not entered within pinMs, then the task times out (TaskTimedOut) and the device session is stopped', async () => {
      const t = await hardwareTaskAwaitingPin();
      t.newEvents();

      t.clock.advance(TIMEOUTS.pinMs - 1);
      assert.deepEqual(t.state(), { usingDevice: 'awaitingPin' }, 'not a millisecond early');

      t.clock.advance(1);

      assert.equal(t.state(), 'failed');
      assert.equal(t.session().signal.aborted, true);
      assert.deepEqual(t.newEvents(), [timedOut('the device PIN', 60_000)]);
    });

    test('when the device connects in time, then the connect timeout never fires', async () => {
      const t = await hardwareTaskReadingKey();
      t.newEvents();

      t.clock.advance(TIMEOUTS.confirmMs - 1); // well past connectMs

      assert.deepEqual(t.state(), { usingDevice: 'readingKey' });
      assert.deepEqual(t.newEvents(), []);
    });

    test('when the user does not confirm on the device within confirmMs, then the task times out (TaskTimedOut), the device session is stopped and nothing is activated', async () => {
      const t = await hardwareTaskReadingKey();
      t.clock.advance(TIMEOUTS.confirmMs - 10); // the device took its time to ask: the confirmation gets its own full wait
      t.session().report({ type: 'BUTTON_REQUESTED' });
      t.newEvents();

      t.clock.advance(TIMEOUTS.confirmMs - 1);
      t.session().report({ type: 'BUTTON_REQUESTED' }); // asking again does not extend the wait
      assert.deepEqual(t.state(), { usingDevice: 'followingInstructions' }, 'not a millisecond early');
      assert.deepEqual(t.newEvents(), []);

      t.clock.advance(1);

      assert.equal(t.state(), 'failed');
      assert.equal(t.session().signal.aborted, true, 'the device call is aborted');
      assert.equal(t.activations.length, 0, 'no chain work, nothing registered');
      assert.equal(t.clock.pendingTimers, 0);
      const error = {
        errorType: 'TaskTimedOut',
        message: 'Initialization task has timed out waiting for the user to confirm on the device (90000 ms)',
        data: { duration_ms: 90_000 },
      };
      assert.deepEqual(t.newEvents(), [{ type: 'TaskFailed', data: { taskId: TASK_ID, error } }]);
      assert.deepEqual(t.actor.getSnapshot().output, { ok: false, error });
    });

    test('when the device is not confirmed within confirmMs of the PIN, then the task times out (TaskTimedOut)', async () => {
      const t = await hardwareTaskAwaitingPin();
      t.clock.advance(TIMEOUTS.pinMs - 1);
      t.actor.send({ type: 'PIN_ENTERED', pin: '4821' });
      t.newEvents();

      t.clock.advance(TIMEOUTS.confirmMs - 1);
      assert.deepEqual(t.state(), { usingDevice: 'followingInstructions' }, 'counted from the PIN, not from the PIN request');

      t.clock.advance(1);

      assert.equal(t.state(), 'failed');
      assert.equal(t.session().signal.aborted, true);
      assert.equal((t.newEvents()[0] as { data: { error: { errorType: string } } }).data.error.errorType, 'TaskTimedOut');
    });

    test('when the connected device never answers (no PIN, no confirmation asked), then the task times out after confirmMs', async () => {
      const t = await hardwareTaskReadingKey();
      t.newEvents();

      t.clock.advance(TIMEOUTS.confirmMs - 1);
      assert.deepEqual(t.state(), { usingDevice: 'readingKey' });

      t.clock.advance(1);

      assert.equal(t.state(), 'failed');
      assert.equal(t.session().signal.aborted, true);
      assert.deepEqual(t.newEvents(), [timedOut('the device to answer', 90_000)]);
    });

    test('when the key is read in time, then no device timeout is left running', async () => {
      const t = await hardwareTaskReadingKey();
      t.session().report({ type: 'BUTTON_REQUESTED' });
      t.session().report({ type: 'KEY_READ', key });

      assert.equal(t.clock.pendingTimers, 0);
      t.clock.advance(TIMEOUTS.confirmMs * 10);
      assert.deepEqual(t.state(), { activating: 'requestingWalletBalance' });
    });
  });

  describe('Given a task in a cancellable state', () => {
    const cases: { name: string; given: () => Promise<Task>; aborted: (t: Task) => AbortSignal }[] = [
      { name: 'planning', given: async () => task(), aborted: (t) => t.plan().signal },
      { name: 'waiting for the device', given: hardwareTaskWaiting, aborted: (t) => t.device().signal },
      { name: 'reading the key on the device', given: hardwareTaskReadingKey, aborted: (t) => t.session().signal },
      { name: 'waiting for the PIN', given: hardwareTaskAwaitingPin, aborted: (t) => t.session().signal },
      {
        name: 'following the device instructions',
        given: async () => {
          const t = await hardwareTaskAwaitingPin();
          t.actor.send({ type: 'PIN_ENTERED', pin: '4821' });
          return t;
        },
        aborted: (t) => t.session().signal,
      },
      { name: 'requesting the wallet balance', given: softwareTaskActivating, aborted: (t) => t.activation().signal },
    ];
    for (const { name, given, aborted } of cases) {
      test(`when it is cancelled while ${name}, then it ends Cancelled with TaskCancelled and its invoked work is aborted`, async () => {
        const t = await given();
        const signal = aborted(t);
        assert.equal(signal.aborted, false);
        assert.equal(t.actor.getSnapshot().can({ type: 'CANCEL' }), true);
        t.newEvents();

        t.actor.send({ type: 'CANCEL' });

        assert.equal(t.state(), 'cancelled');
        assert.equal(signal.aborted, true);
        assert.deepEqual(t.newEvents(), [cancelled]);
        assert.deepEqual(t.actor.getSnapshot().output, { ok: false, error: null });
        assert.equal(t.clock.pendingTimers, 0, 'no timeout outlives the task');
      });
    }

    test('when the cancelled work finishes anyway, then nothing changes', async () => {
      const t = task();
      t.actor.send({ type: 'CANCEL' });
      t.newEvents();

      t.plan().resolve({ plan });
      await settle();

      assert.equal(t.state(), 'cancelled');
      assert.deepEqual(t.newEvents(), []);
      assert.equal(t.activations.length, 0);
    });
  });

  describe('Given a task finishing (the chain is read, the coin being recorded)', () => {
    test('when it is cancelled, then it refuses (no TaskCancelled), keeps its work and still ends Ok', async () => {
      const t = await softwareTaskActivating();
      t.activation().report({ type: 'CHAIN_READ' });
      t.newEvents();

      assert.equal(t.actor.getSnapshot().can({ type: 'CANCEL' }), false);
      t.actor.send({ type: 'CANCEL' });

      assert.deepEqual(t.state(), { activating: 'finishing' });
      assert.equal(t.activation().signal.aborted, false);
      assert.deepEqual(t.newEvents(), []);

      t.activation().report({ type: 'ACTIVATED', summary });
      assert.equal(t.state(), 'ok');
      assert.deepEqual(t.newEvents(), [{ type: 'TaskSucceeded', data: { taskId: TASK_ID, activation: summary } }]);
    });
  });

  describe('Given a finished task', () => {
    test('when it is cancelled, then it stays finished and emits nothing', async () => {
      const t = await softwareTaskActivating();
      t.activation().report({ type: 'ACTIVATION_FAILED', error: new Error('down') });
      t.newEvents();

      // The task manager answers TaskFinished from the status: a done snapshot still says can(CANCEL).
      assert.equal(t.actor.getSnapshot().status, 'done');
      t.actor.send({ type: 'CANCEL' });

      assert.equal(t.state(), 'failed');
      assert.deepEqual(t.newEvents(), []);
    });
  });
});

/**
 * Every task kind runs on this one machine (spec 3.2 holds for each): what differs is the plan the
 * task manager hands it. One plan per kind, through the three ways a task ends.
 */
const KIND_PLANS = [
  { kind: 'task::enable_eth', plan: fakePlan('ETH', ['USDT-ERC20'], { via: ActivationVia.EnableEthTask }), path: PATH },
  { kind: 'task::enable_utxo', plan: fakePlan('LTC', [], { via: ActivationVia.EnableUtxoTask, family: ChainFamilyId.Utxo }), path: "m/44'/2'/0'/0/0" },
  { kind: 'task::enable_qtum', plan: fakePlan('QTUM', [], { via: ActivationVia.EnableQtumTask, family: ChainFamilyId.Utxo }), path: "m/44'/2301'/0'/0/0" },
] as const;

describe('activationTask machine, for every task kind', () => {
  for (const { kind, plan: kindPlan, path } of KIND_PLANS) {
    describe(`Given a ${kind} task with a software key`, () => {
      test('when the chain answers, then it reports the spec 3.2 steps in order and ends Ok with the summary', async () => {
        const t = task();
        t.plan().resolve({ plan: kindPlan });
        await settle();

        assert.deepEqual(t.activation().input, { plan: kindPlan });
        t.activation().report({ type: 'CHAIN_READ' });
        t.activation().report({ type: 'ACTIVATED', summary: { ...summary, ticker: kindPlan.ticker } });
        await settle();

        assert.equal(t.state(), 'ok');
        assert.deepEqual(
          t.emitted.map((e) => (e.type === 'TaskProgressed' ? e.data.details : e.type)),
          ['ActivatingCoin', 'RequestingWalletBalance', 'Finishing', 'TaskSucceeded'],
        );
      });

      test('when it is cancelled while the chain is read, then the chain work is aborted and it ends Cancelled', async () => {
        const t = task();
        t.plan().resolve({ plan: kindPlan });
        await settle();

        t.actor.send({ type: 'CANCEL' });

        assert.equal(t.state(), 'cancelled');
        assert.equal(t.activation().signal.aborted, true);
        assert.deepEqual(t.emitted.at(-1), cancelled);
      });
    });

    describe(`Given a ${kind} task with a hardware key`, () => {
      test('when the device asks for the PIN and the user gives it, then the key read from the device is activated', async () => {
        const t = task();
        t.plan().resolve({ plan: kindPlan, device: { path } });
        await settle();
        t.device().resolve(undefined);
        await settle();
        assert.deepEqual(t.session().input, { path });

        t.session().report({ type: 'PIN_REQUESTED' });
        t.actor.send({ type: 'PIN_ENTERED', pin: '1234' });
        const deviceKey = { ...key, derivationPath: path };
        t.session().report({ type: 'KEY_READ', key: deviceKey });
        await settle();

        assert.deepEqual(t.session().received, [{ type: 'PIN', pin: '1234' }]);
        assert.deepEqual(t.activation().input, { plan: { ...kindPlan, key: deviceKey } });
        assert.deepEqual(
          t.emitted.map((e) => (e.type === 'TaskProgressed' ? `${e.data.status}/${e.data.details}` : e.type)),
          [
            'InProgress/ActivatingCoin',
            'InProgress/WaitingForHardwareToConnect',
            'InProgress/ActivatingCoin',
            'UserActionRequired/EnterHardwarePin',
            'HardwarePinEntered',
            'InProgress/FollowHwDeviceInstructions',
            'InProgress/RequestingWalletBalance',
          ],
        );
      });

      test('when the plan asks for the account node, then the device session reads it at the account path and the activation gets it as deviceAccount, not as an address key', async () => {
        const t = task();
        const accountPath = "m/44'/2'/1'";
        const read = { path: accountPath, account: { accountId: 1, protocol: 'bitcoin' as const, coinName: 'Litecoin' } };
        t.plan().resolve({ plan: kindPlan, device: read });
        await settle();
        t.device().resolve(undefined);
        await settle();
        assert.deepEqual(t.session().input, read);

        const node = { accountId: 1, derivationPath: accountPath, publicKeyHex: `02${'11'.repeat(32)}`, chainCodeHex: '22'.repeat(32) };
        t.session().report({ type: 'KEY_READ', key: node });
        await settle();

        assert.deepEqual(t.activation().input, { plan: { ...kindPlan, deviceAccount: node } });
        assert.equal(t.session().signal.aborted, true);
      });
    });
  }
});
