import { createActor, fromCallback, fromPromise, type Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import { taskStream, type EventLog } from '../events/log/eventLog.ts';
import type { TaskRecord, TaskStatusProjection } from '../events/projections/taskStatus.ts';
import { activationTaskMachine, TaskWork, type AccountWorkResult, type ActivationTaskInput, type HardwareTimeouts, type PlannedTask } from '../machines/activationTask.machine.ts';
import type { Bip44Chain } from '../spec/accountBalance.ts';
import { KeyPolicy } from '../machines/activation.types.ts';
import { TaskKind } from '../spec/taskKind.ts';
import type { Clock } from '../kernel/clock.ts';
import type { HardwareWallet } from './ports/hardwareWallet.ts';
import { activationRequest, type ActivationService } from './activationService.ts';
import { CommandKind, type ActivationCommand } from './ports/chainFamily.ts';
import type { CoinRegistry } from './coinRegistry.ts';
import type { Reservation } from './coinRequests.ts';
import type { Activation } from './activationOutcome.ts';
import { xstateClock } from './xstateClock.ts';
import { deviceSessionActor } from './deviceSession.ts';
import type { WithdrawService } from './withdrawService.ts';
import type { WithdrawCommand } from './withdrawCommand.ts';
import { withdrawActor } from './withdrawTask.ts';

type TaskActor = Actor<typeof activationTaskMachine>;

/** What the task machine does for each account task kind. */
const ACCOUNT_WORK = {
  [TaskKind.AccountBalance]: TaskWork.AccountBalance,
  [TaskKind.GetNewAddress]: TaskWork.NewAddress,
  [TaskKind.ScanForNewAddresses]: TaskWork.ScanAddresses,
} as const;

/** The hardware waits of a task (device connect, PIN, device answer/confirmation), in ms. @default 300_000 each */
export type TaskTimeouts = HardwareTimeouts;

export const DEFAULT_TASK_TIMEOUTS: TaskTimeouts = { connectMs: 300_000, pinMs: 300_000, confirmMs: 300_000 };

export interface ActivationTasksDeps {
  readonly log: EventLog;
  readonly registry: CoinRegistry;
  readonly service: ActivationService;
  readonly statuses: TaskStatusProjection;
  readonly clock: Clock;
  readonly timeouts?: TaskTimeouts;
  /** The device adapter, created on first use (a service that never sees a device pays nothing). */
  readonly hardware: () => Promise<HardwareWallet>;
  /** Withdrawals (`task::withdraw`); absent: that kind is not served. */
  readonly withdrawals?: WithdrawService;
}

/** A task to start: its kind (which `task::<kind>::*` methods answer for it) and its command. */
export interface TaskStart {
  readonly kind: TaskKind;
  readonly command: ActivationCommand;
  /** `client_id` of `init`: the `/event-stream` connections of that id hear the task. @default 0 */
  readonly clientId?: number;
}

/**
 * A task on an enabled coin's HD account to start: the coin, the account, the `client_id` of
 * `init` (@default 0), and by kind what it does: read the account (`task::account_balance`), hand
 * out a new address of `chain` (`task::get_new_address`), scan beyond the known addresses
 * (`task::scan_for_new_addresses`); `gapLimit` absent: the coin's activation's.
 */
export type AccountTaskStart = { readonly ticker: string; readonly accountIndex: number; readonly clientId?: number } & (
  | { readonly kind: typeof TaskKind.AccountBalance }
  | { readonly kind: typeof TaskKind.GetNewAddress; readonly chain: Bip44Chain; readonly gapLimit?: number }
  | { readonly kind: typeof TaskKind.ScanForNewAddresses; readonly gapLimit?: number }
);

/**
 * The task manager of every `task::<kind>::*` family (spec 3.2): gives ids (one sequence for every
 * kind, never reused: the next follows the highest in the log), runs one `activationTask` actor
 * per task, persists what it emits, and answers status from the projection. A task answers only
 * to its own kind's methods.
 */
export class ActivationTasks {
  readonly #deps: ActivationTasksDeps;
  readonly #actors = new Map<number, TaskActor>();
  readonly #lastWrite = new Map<number, Promise<unknown>>();
  /**
   * Tasks cancelled or forgotten whose event may not be durable yet: they are gone from the moment
   * the decision is taken, so a concurrent request cannot read or cancel them a second time.
   */
  readonly #gone = new Set<number>();
  readonly #clock: ReturnType<typeof xstateClock>;
  #nextId: number;

  constructor(deps: ActivationTasksDeps) {
    this.#deps = deps;
    this.#nextId = deps.statuses.nextTaskId;
    this.#clock = xstateClock(deps.clock);
  }

  /**
   * Starts a task. `task::enable_eth` fails at once only if the coin is active (or being
   * activated); everything else (unknown ticker, bad token, dead nodes, no device) ends the task
   * with an error later. The standalone kinds (`enable_utxo`, `enable_qtum`) also check the whole
   * request at once (spec 3.2: "request valid"), so a bad body creates no task. Resolves once the
   * task's creation is durable, so its id can never be handed out again.
   */
  async init({ kind, command, clientId = 0 }: TaskStart): Promise<number> {
    const request = activationRequest(command);
    const reservation = this.#deps.registry.reserve(request);
    let planned: PlannedTask | undefined;
    let taskId: number;
    try {
      if (kind !== TaskKind.EnableEth) planned = this.#plan(command);
      taskId = this.#nextId++;
      const getBalances = command.kind === CommandKind.Platform ? command.getBalances : true;
      await this.#persist(taskId, {
        type: 'TaskCreated',
        data: { taskId, ticker: command.ticker, tokens: [...request.tokens], keyPolicy: keyPolicyOf(command), getBalances, clientId, kind },
      });
    } catch (error) {
      reservation.release();
      throw error;
    }
    const actor = this.#createActor(taskId, command, reservation, planned);
    this.#actors.set(taskId, actor);
    actor.start();
    return taskId;
  }

  /**
   * Starts a task on an enabled coin's HD account (`task::account_balance`, docs/compatibility.md
   * §21; `task::get_new_address`, `task::scan_for_new_addresses`, §24): fails at once only if the
   * coin is not enabled (`NoSuchCoin`, as the reference's `init`); an Iguana coin, another account
   * or the gap limit ends the task with the error. Resolves once the task's creation is durable.
   */
  async initAccountTask(start: AccountTaskStart): Promise<number> {
    const { ticker, accountIndex, clientId = 0, kind } = start;
    const { service } = this.#deps;
    service.assertBalanceAnswered(ticker);
    const taskId = this.#nextId++;
    await this.#persist(taskId, { type: 'TaskCreated', data: { taskId, ticker, tokens: [], getBalances: true, clientId, kind, accountIndex } });
    const work = (signal: AbortSignal): Promise<AccountWorkResult> => {
      if (start.kind === TaskKind.AccountBalance) return service.accountBalanceRead(ticker, accountIndex, signal).then((accountBalance) => ({ accountBalance }));
      const { gapLimit } = start;
      if (start.kind === TaskKind.GetNewAddress) {
        return service.newAddress(ticker, { accountIndex, chain: start.chain, ...(gapLimit === undefined ? {} : { gapLimit }) }, signal).then((newAddress) => ({ newAddress }));
      }
      return service.scanForNewAddresses(ticker, { accountIndex, ...(gapLimit === undefined ? {} : { gapLimit }) }, signal).then((scannedAddresses) => ({ scannedAddresses }));
    };
    const machine = activationTaskMachine.provide({ actors: { workOnAccount: fromPromise(({ signal }) => work(signal)) } });
    this.#start(taskId, machine, { taskId, ticker, timeouts: this.#timeouts, work: ACCOUNT_WORK[kind] }, () => undefined);
    return taskId;
  }

  /**
   * Starts a `task::withdraw` (docs/compatibility.md §23): every check that needs no chain runs at
   * once (an inactive coin is `NoSuchCoin` 404, as the reference's `init`; a bad amount, fee or
   * `from` creates no task); the family's checks and the signing end the task. Resolves once the
   * task's creation is durable.
   */
  async initWithdraw(command: WithdrawCommand, clientId = 0): Promise<number> {
    const withdrawals = this.#deps.withdrawals;
    if (withdrawals === undefined) throw new ActivationError(ErrorType.InternalError, 'withdrawals are not wired');
    const resolved = withdrawals.resolve(command);
    const taskId = this.#nextId++;
    await this.#persist(taskId, {
      type: 'TaskCreated',
      data: { taskId, ticker: command.ticker, tokens: [], getBalances: true, clientId, kind: TaskKind.Withdraw, keyPolicy: resolved.hardware ? KeyPolicy.Hardware : KeyPolicy.ContextPrivKey },
    });
    const machine = activationTaskMachine.provide({ actors: { withdraw: withdrawActor(withdrawals, this.#deps.hardware, resolved) } });
    this.#start(taskId, machine, { taskId, ticker: command.ticker, timeouts: this.#timeouts, work: TaskWork.Withdraw }, () => undefined);
    return taskId;
  }

  /**
   * The task's status; with `forget` a finished task is forgotten by this read (resolves once that
   * is durable). Synchronous otherwise: status polling is the hot path.
   */
  status(kind: TaskKind, taskId: number, forget: boolean): TaskRecord | Promise<TaskRecord> {
    const task = this.#visible(kind, taskId, 400);
    if (!forget || (task.view.state !== 'Ok' && task.view.state !== 'Error')) return task;
    this.#gone.add(taskId);
    this.#actors.delete(taskId);
    return this.#persist(taskId, { type: 'TaskForgotten', data: { taskId } }).then(() => task);
  }

  /** Passes the device PIN to a task that awaits it. */
  async enterPin(kind: TaskKind, taskId: number, pin: string): Promise<void> {
    this.#visible(kind, taskId, 400);
    const actor = this.#actors.get(taskId);
    if (!actor?.getSnapshot().hasTag('awaitingPin')) {
      throw new ActivationError(ErrorType.InternalError, `task ${taskId} is not waiting for a PIN`);
    }
    actor.send({ type: 'PIN_ENTERED', pin });
    await this.#lastWrite.get(taskId);
  }

  /** Cancels a running task: its device and chain work are aborted and nothing is registered. */
  async cancel(kind: TaskKind, taskId: number): Promise<void> {
    const task = this.#visible(kind, taskId, 404);
    const actor = this.#actors.get(taskId);
    const running = actor?.getSnapshot().status === 'active';
    if (!running || !actor.getSnapshot().can({ type: 'CANCEL' })) {
      const finishing = running ? ' is finishing and' : '';
      throw new ActivationError(ErrorType.TaskFinished, `task ${task.taskId}${finishing} can no longer be cancelled`, taskId);
    }
    actor.send({ type: 'CANCEL' });
    this.#gone.add(taskId);
    await this.#lastWrite.get(taskId);
  }

  /** Records `TaskInterrupted` for tasks a previous run left unfinished. */
  async recordInterrupted(currentSessionId: string): Promise<void> {
    for (const task of this.#deps.statuses.orphans(currentSessionId)) {
      await this.#persist(task.taskId, { type: 'TaskInterrupted', data: { taskId: task.taskId, sessionId: task.sessionId } });
    }
  }

  /** Stops every task (their work is aborted; a restart records them as interrupted). */
  async stop(): Promise<void> {
    for (const actor of this.#actors.values()) actor.stop();
    await Promise.allSettled(this.#lastWrite.values());
  }

  /** The task as the projection knows it, unless unknown, of another kind, cancelled or forgotten. */
  #visible(kind: TaskKind, taskId: number, httpStatus: number): TaskRecord {
    const task = this.#deps.statuses.get(taskId);
    if (task === undefined || task.kind !== kind || this.#gone.has(taskId) || task.view.state === 'Cancelled' || task.view.state === 'Forgotten') {
      throw new ActivationError(ErrorType.NoSuchTask, `No such task '${taskId}'`, taskId, { httpStatus });
    }
    return task;
  }

  /** The plan of a task's command and, for a hardware key, what the device reads. */
  #plan(command: ActivationCommand): PlannedTask {
    const { service } = this.#deps;
    const plan = service.plan(command);
    return keyPolicyOf(command) === KeyPolicy.Hardware ? { plan, device: service.hardwareRead(plan) } : { plan };
  }

  #createActor(taskId: number, command: ActivationCommand, reservation: Reservation, planned: PlannedTask | undefined): TaskActor {
    const { registry } = this.#deps;
    const machine = activationTaskMachine.provide({
      actors: {
        planActivation: fromPromise<PlannedTask, { taskId: number }>(async () => planned ?? this.#plan(command)),
        waitForDevice: fromPromise(async ({ signal }) => (await this.#deps.hardware()).waitForDevice(signal)),
        deviceSession: deviceSessionActor(this.#deps.hardware),
        activateCoin: fromCallback(({ input, sendBack }) => {
          let settled = false;
          let activation: Promise<Activation>;
          try {
            activation = registry.activate(this.#deps.service.withDeviceAccount(input.plan), { reservation, taskId, onChainRead: () => sendBack({ type: 'CHAIN_READ' }) });
          } catch (error) {
            activation = Promise.reject(error); // e.g. the service is stopping: the task still ends
          }
          activation.then(
            ({ summary }) => {
              settled = true;
              sendBack({ type: 'ACTIVATED', summary });
            },
            (error: unknown) => {
              settled = true;
              sendBack({ type: 'ACTIVATION_FAILED', error });
            },
          );
          return () => {
            if (!settled) void registry.cancel(input.plan.ticker);
          };
        }),
      },
    });
    return this.#create(taskId, machine, { taskId, ticker: command.ticker, timeouts: this.#timeouts }, () => reservation.release());
  }

  get #timeouts(): TaskTimeouts {
    return this.#deps.timeouts ?? DEFAULT_TASK_TIMEOUTS;
  }

  /** Creates and starts a task's actor (see {@link #create}). */
  #start(taskId: number, machine: typeof activationTaskMachine, input: ActivationTaskInput, release: () => void): void {
    const actor = this.#create(taskId, machine, input, release);
    this.#actors.set(taskId, actor);
    actor.start();
  }

  /** A task's actor: what it emits is persisted; once finished it lives on in the projection only (`release` runs). */
  #create(taskId: number, machine: typeof activationTaskMachine, input: ActivationTaskInput, release: () => void): TaskActor {
    const actor = createActor(machine, { input, clock: this.#clock });
    actor.on('*', (event) => void this.#persist(taskId, event as DomainEvent).catch(() => undefined));
    const finished = () => {
      release();
      this.#actors.delete(taskId);
    };
    actor.subscribe({ complete: finished, error: finished });
    return actor;
  }

  #persist(taskId: number, event: DomainEvent): Promise<unknown> {
    const write = this.#deps.log.append(taskStream(taskId), [event]);
    this.#lastWrite.set(taskId, write);
    const forget = () => {
      if (this.#lastWrite.get(taskId) === write && !this.#actors.has(taskId)) this.#lastWrite.delete(taskId);
    };
    write.then(forget, forget);
    return write;
  }
}

/** The key policy of a task's command (the legacy forms have none: the context key). */
function keyPolicyOf(command: ActivationCommand): KeyPolicy {
  return 'keyPolicy' in command ? command.keyPolicy : KeyPolicy.ContextPrivKey;
}
