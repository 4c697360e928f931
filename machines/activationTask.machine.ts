import { assign, emit, fromCallback, fromPromise, not, sendTo, setup, stateIn, type AnyEventObject } from 'xstate';
import type { AccountBalanceRead, DomainEvent, ErrorInfo, NewAddressRead, ScannedAddressesRead, WithdrawalSummary } from '../spec/events.ts';
import { ActivationError, ErrorType, toActivationError } from '../spec/errors.ts';
import { withDeviceKey, type ActivationPlan, type ActivationSummary, type DeviceKey } from './activation.types.ts';

/**
 * One run of a task, of every kind (`task::enable_eth`, `task::enable_utxo`, `task::enable_qtum`,
 * `task::account_balance`, `task::get_new_address`, `task::scan_for_new_addresses`: spec 3.2 holds
 * for each). For the activation kinds what differs is the plan, which the task manager provides,
 * and how an `Ok` result is rendered. The account kinds ({@link TaskWork}) skip planning, device
 * and activation: each reports its one in-progress detail ({@link ACCOUNT_WORK_DETAILS}) while its
 * invoked work on the account runs, and ends the same way (`ok` with the result, `failed`,
 * `cancelled` at any time). In progress an activation
 * reports `ActivatingCoin`, `WaitingForHardwareToConnect`, `FollowHwDeviceInstructions`,
 * `RequestingWalletBalance`, `Finishing`, or `UserActionRequired` while the device PIN is
 * awaited; it ends `ok`, `failed` or
 * `cancelled`. Device and chain work are invoked actors provided by `actors/`; leaving a state
 * stops them (their AbortSignal aborts). Every wait on the device or the user ends: each has its
 * timeout ({@link HardwareTimeouts}), which fails the task `TaskTimedOut`, on the actor system's clock.
 */

export const TaskDetails = {
  ActivatingCoin: 'ActivatingCoin',
  RequestingAccountBalance: 'RequestingAccountBalance',
  Preparing: 'Preparing',
  InProgress: 'InProgress',
  RequestingWalletBalance: 'RequestingWalletBalance',
  Finishing: 'Finishing',
  WaitingForHardwareToConnect: 'WaitingForHardwareToConnect',
  FollowHwDeviceInstructions: 'FollowHwDeviceInstructions',
  EnterHardwarePin: 'EnterHardwarePin',
  // `task::withdraw` (the reference's `WithdrawInProgressStatus`; `Preparing` above too)
  GeneratingTransaction: 'GeneratingTransaction',
} as const;

/**
 * How long each hardware wait may last before the task ends `TaskTimedOut` (spec 3.2, 4.2). Each
 * starts when its wait starts; every one runs on the actor system's clock.
 */
export interface HardwareTimeouts {
  /** `WaitingForHardwareToConnect`: the device to be plugged in and answer. */
  readonly connectMs: number;
  /** `UserActionRequired`/`EnterHardwarePin`: the user's PIN. */
  readonly pinMs: number;
  /**
   * The device to answer once connected: while it reads the key (`ActivatingCoin`) and again from
   * the moment it asks the user to confirm on its screen (`FollowHwDeviceInstructions`).
   */
  readonly confirmMs: number;
}

/** What a task does: activate a coin, work on an enabled coin's HD account (read it, add an address, scan it), or withdraw. */
export const TaskWork = {
  Activation: 'activation',
  AccountBalance: 'account_balance',
  NewAddress: 'get_new_address',
  ScanAddresses: 'scan_for_new_addresses',
  Withdraw: 'withdraw',
} as const;
export type TaskWork = (typeof TaskWork)[keyof typeof TaskWork];

/** The in-progress detail of each account work while it runs (the reference's first status of each task). */
/** The works on an enabled coin's HD account. */
export type AccountWork = Exclude<TaskWork, 'activation' | 'withdraw'>;

export const ACCOUNT_WORK_DETAILS: Readonly<Record<AccountWork, string>> = {
  [TaskWork.AccountBalance]: TaskDetails.RequestingAccountBalance,
  [TaskWork.NewAddress]: TaskDetails.Preparing,
  [TaskWork.ScanAddresses]: TaskDetails.InProgress,
};

/** What an account work found: the read account, the new address, or the scanned addresses. */
export type AccountWorkResult =
  | { readonly accountBalance: AccountBalanceRead }
  | { readonly newAddress: NewAddressRead }
  | { readonly scannedAddresses: ScannedAddressesRead };

export interface ActivationTaskInput {
  readonly taskId: number;
  readonly ticker: string;
  readonly timeouts: HardwareTimeouts;
  /** @default TaskWork.Activation */
  readonly work?: TaskWork;
}

/**
 * What a hardware task reads from the device: the key of one address at `path`, or with `account`
 * the public node of the account at `path` (an HD scan derives the addresses from it).
 */
export interface DeviceRead {
  readonly path: string;
  readonly account?: { readonly accountId: number; readonly protocol: 'bitcoin' | 'ethereum'; readonly coinName?: string };
}

/** What planning yields: the plan, and for a hardware key what to read from the device. */
export interface PlannedTask {
  readonly plan: ActivationPlan;
  readonly device?: DeviceRead;
}

export interface ActivationTaskContext extends ActivationTaskInput {
  readonly planned: PlannedTask | null;
  readonly key: DeviceKey | null;
  readonly result: ActivationSummary | null;
  /** An account work's result, once done. */
  readonly accountResult: AccountWorkResult | null;
  /** A `task::withdraw` run's signed transaction, once done. */
  readonly withdrawal: WithdrawalSummary | null;
  readonly error: ErrorInfo | null;
}

/** Commands from the task manager. */
export type ActivationTaskCommand = { readonly type: 'CANCEL' } | { readonly type: 'PIN_ENTERED'; readonly pin: string };

/** Reports of the invoked device session. */
export type DeviceSessionEvent =
  | { readonly type: 'PIN_REQUESTED' }
  | { readonly type: 'BUTTON_REQUESTED' }
  | { readonly type: 'KEY_READ'; readonly key: DeviceKey }
  | { readonly type: 'DEVICE_FAILED'; readonly error: unknown };

/** Reports of the invoked coin activation. */
export type CoinActivationReport =
  | { readonly type: 'CHAIN_READ' }
  | { readonly type: 'ACTIVATED'; readonly summary: ActivationSummary }
  | { readonly type: 'ACTIVATION_FAILED'; readonly error: unknown };

/**
 * Reports of the invoked withdrawal (`task::withdraw`): it builds (`GENERATING`), may ask the
 * device's PIN or a confirmation (the device session's `PIN_REQUESTED`, `BUTTON_REQUESTED`) and
 * ends signed or failed. It receives the PIN as a `PIN` event, as the device session does.
 */
export type WithdrawalReport =
  | { readonly type: 'GENERATING' }
  | { readonly type: 'SIGNED'; readonly withdrawal: WithdrawalSummary }
  | { readonly type: 'WITHDRAWAL_FAILED'; readonly error: unknown };

export type ActivationTaskEvent = ActivationTaskCommand | DeviceSessionEvent | CoinActivationReport | WithdrawalReport;

export type ActivationTaskOutput =
  | { readonly ok: true; readonly result: ActivationSummary }
  | ({ readonly ok: true } & AccountWorkResult)
  | { readonly ok: true; readonly withdrawal: WithdrawalSummary }
  | { readonly ok: false; readonly error: ErrorInfo | null };

/** The hardware waits: what each awaits (for its error) and which timeout bounds it. */
const HARDWARE_WAITS = {
  connect: { what: 'the device to connect', timeout: 'connectMs' },
  pin: { what: 'the device PIN', timeout: 'pinMs' },
  answer: { what: 'the device to answer', timeout: 'confirmMs' },
  confirm: { what: 'the user to confirm on the device', timeout: 'confirmMs' },
} as const satisfies Record<string, { what: string; timeout: keyof HardwareTimeouts }>;
type HardwareWait = keyof typeof HARDWARE_WAITS;

const timedOut = (wait: HardwareWait, timeouts: HardwareTimeouts): ErrorInfo => {
  const { what, timeout } = HARDWARE_WAITS[wait];
  const ms = timeouts[timeout];
  return new ActivationError(ErrorType.TaskTimedOut, `Initialization task has timed out waiting for ${what} (${ms} ms)`, { duration_ms: ms }).toJSON();
};

const failure = (error: unknown): ErrorInfo => toActivationError(error).toJSON();

/**
 * The device's waits inside a step whose invoked actor has id `device` (reading a key, signing a
 * withdrawal): the confirmation on its screen and the PIN, each on its own timer. The PIN goes to
 * the device actor; only the fact that it was entered is recorded.
 */
const deviceWaits = {
  followingInstructions: {
    entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.FollowHwDeviceInstructions } },
    after: { confirmTimeout: { target: '#activationTask.failed', actions: { type: 'timedOut', params: { wait: 'confirm' } } } },
  },
  awaitingPin: {
    tags: ['awaitingPin'],
    entry: { type: 'progress', params: { status: 'UserActionRequired', details: TaskDetails.EnterHardwarePin } },
    on: {
      PIN_ENTERED: {
        target: 'followingInstructions',
        actions: ['forwardPin', 'recordPinEntered'],
      },
    },
    after: { pinTimeout: { target: '#activationTask.failed', actions: { type: 'timedOut', params: { wait: 'pin' } } } },
  },
} as const;

export const activationTaskMachine = setup({
  types: {
    input: {} as ActivationTaskInput,
    context: {} as ActivationTaskContext,
    events: {} as ActivationTaskEvent,
    emitted: {} as DomainEvent,
    output: {} as ActivationTaskOutput,
  },
  actors: {
    planActivation: fromPromise<PlannedTask, { taskId: number }>(async () => {
      throw new Error('planActivation is provided by the task manager');
    }),
    waitForDevice: fromPromise<unknown, { taskId: number }>(async () => {
      throw new Error('waitForDevice is provided by the task manager');
    }),
    deviceSession: fromCallback<AnyEventObject, DeviceRead>(() => {
      throw new Error('deviceSession is provided by the task manager');
    }),
    activateCoin: fromCallback<AnyEventObject, { plan: ActivationPlan }>(() => {
      throw new Error('activateCoin is provided by the task manager');
    }),
    workOnAccount: fromPromise<AccountWorkResult, { taskId: number }>(async () => {
      throw new Error('workOnAccount is provided by the task manager');
    }),
    withdraw: fromCallback<AnyEventObject, { taskId: number }>(() => {
      throw new Error('withdraw is provided by the task manager');
    }),
  },
  delays: {
    connectTimeout: ({ context }) => context.timeouts.connectMs,
    pinTimeout: ({ context }) => context.timeouts.pinMs,
    confirmTimeout: ({ context }) => context.timeouts.confirmMs,
  },
  guards: {
    usesHardware: ({ event }) => (event as { output?: PlannedTask }).output?.device !== undefined,
    worksOnAccount: ({ context }) => context.work !== undefined && context.work !== TaskWork.Activation && context.work !== TaskWork.Withdraw,
    withdraws: ({ context }) => context.work === TaskWork.Withdraw,
  },
  actions: {
    progress: emit(({ context }, params: { status: 'InProgress' | 'UserActionRequired'; details: string }) => ({
      type: 'TaskProgressed' as const,
      data: { taskId: context.taskId, ...params },
    })),
    fail: assign({ error: ({ event }) => failure((event as { error?: unknown }).error) }),
    timedOut: assign({ error: ({ context }, params: { wait: HardwareWait }) => timedOut(params.wait, context.timeouts) }),
    forwardPin: sendTo('device', ({ event }) => ({ type: 'PIN', pin: (event as { pin: string }).pin })),
    recordPinEntered: emit(({ context }) => ({ type: 'HardwarePinEntered' as const, data: { taskId: context.taskId } })),
  },
}).createMachine({
  id: 'activationTask',
  context: ({ input }) => ({ ...input, planned: null, key: null, result: null, accountResult: null, withdrawal: null, error: null }),
  initial: 'starting',
  // Once the chain work is done (`finishing`) the coin is being recorded: too late to cancel.
  on: { CANCEL: { guard: not(stateIn({ activating: 'finishing' })), target: '.cancelled' } },
  states: {
    starting: { always: [{ guard: 'worksOnAccount', target: 'workingOnAccount' }, { guard: 'withdraws', target: 'withdrawing' }, { target: 'planning' }] },
    // `task::withdraw`: Preparing → GeneratingTransaction → (device: PIN, confirmation) → Finishing → ok.
    withdrawing: {
      invoke: { id: 'device', src: 'withdraw', input: ({ context }) => ({ taskId: context.taskId }) },
      on: {
        SIGNED: {
          target: 'ok',
          actions: [
            { type: 'progress', params: { status: 'InProgress', details: TaskDetails.Finishing } },
            assign({ withdrawal: ({ event }) => event.withdrawal }),
          ],
        },
        WITHDRAWAL_FAILED: { target: 'failed', actions: 'fail' },
        BUTTON_REQUESTED: { guard: not(stateIn({ withdrawing: 'followingInstructions' })), target: '.followingInstructions' },
        PIN_REQUESTED: '.awaitingPin',
      },
      initial: 'preparing',
      states: {
        preparing: {
          entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.Preparing } },
          on: { GENERATING: 'generating' },
        },
        generating: { entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.GeneratingTransaction } } },
        ...deviceWaits,
      },
    },
    workingOnAccount: {
      entry: emit(({ context }) => ({
        type: 'TaskProgressed' as const,
        data: { taskId: context.taskId, status: 'InProgress' as const, details: ACCOUNT_WORK_DETAILS[context.work as AccountWork] },
      })),
      invoke: {
        src: 'workOnAccount',
        input: ({ context }) => ({ taskId: context.taskId }),
        onDone: { target: 'ok', actions: assign({ accountResult: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    planning: {
      entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.ActivatingCoin } },
      invoke: {
        src: 'planActivation',
        input: ({ context }) => ({ taskId: context.taskId }),
        onDone: [
          { guard: 'usesHardware', target: 'waitingForDevice', actions: assign({ planned: ({ event }) => event.output }) },
          { target: 'activating', actions: assign({ planned: ({ event }) => event.output }) },
        ],
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    waitingForDevice: {
      entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.WaitingForHardwareToConnect } },
      invoke: { src: 'waitForDevice', input: ({ context }) => ({ taskId: context.taskId }), onDone: 'usingDevice', onError: { target: 'failed', actions: 'fail' } },
      after: { connectTimeout: { target: 'failed', actions: { type: 'timedOut', params: { wait: 'connect' } } } },
    },
    usingDevice: {
      invoke: { id: 'device', src: 'deviceSession', input: ({ context }) => context.planned!.device! },
      on: {
        KEY_READ: { target: 'activating', actions: assign({ key: ({ event }) => event.key }) },
        DEVICE_FAILED: { target: 'failed', actions: 'fail' },
        // Already following instructions (after the PIN): re-entering would record the step twice.
        BUTTON_REQUESTED: { guard: not(stateIn({ usingDevice: 'followingInstructions' })), target: '.followingInstructions' },
        PIN_REQUESTED: '.awaitingPin',
      },
      initial: 'readingKey',
      states: {
        readingKey: {
          entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.ActivatingCoin } },
          after: { confirmTimeout: { target: '#activationTask.failed', actions: { type: 'timedOut', params: { wait: 'answer' } } } },
        },
        ...deviceWaits,
      },
    },
    activating: {
      // One invoked activation spans both steps, so its final report reaches the task.
      invoke: {
        src: 'activateCoin',
        input: ({ context }) => ({ plan: context.key ? withDeviceKey(context.planned!.plan, context.key) : context.planned!.plan }),
      },
      on: {
        ACTIVATED: { target: 'ok', actions: assign({ result: ({ event }) => event.summary }) },
        ACTIVATION_FAILED: { target: 'failed', actions: 'fail' },
      },
      initial: 'requestingWalletBalance',
      states: {
        requestingWalletBalance: {
          entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.RequestingWalletBalance } },
          on: { CHAIN_READ: 'finishing' },
        },
        finishing: { entry: { type: 'progress', params: { status: 'InProgress', details: TaskDetails.Finishing } } },
      },
    },
    ok: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'TaskSucceeded' as const,
        data:
          context.withdrawal !== null
            ? { taskId: context.taskId, withdrawal: context.withdrawal }
            : context.accountResult !== null
              ? { taskId: context.taskId, ...context.accountResult }
              : { taskId: context.taskId, activation: context.result! },
      })),
    },
    failed: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'TaskFailed' as const,
        data: { taskId: context.taskId, error: context.error ?? failure(new Error('task failed')) },
      })),
    },
    cancelled: {
      type: 'final',
      entry: emit(({ context }) => ({ type: 'TaskCancelled' as const, data: { taskId: context.taskId } })),
    },
  },
  output: ({ context }): ActivationTaskOutput => {
    if (context.result) return { ok: true, result: context.result };
    if (context.accountResult) return { ok: true, ...context.accountResult };
    if (context.withdrawal) return { ok: true, withdrawal: context.withdrawal };
    return { ok: false, error: context.error };
  },
});
