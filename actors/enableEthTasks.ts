import { createActor, fromCallback, fromPromise, type Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';
import { taskStream, type EventLog } from '../events/log/eventLog.ts';
import type { TaskRecord, TaskStatusProjection } from '../events/projections/taskStatus.ts';
import { enableEthTaskMachine, type HardwareTimeouts, type PlannedTask } from '../machines/enableEthTask.machine.ts';
import { KeyPolicy } from '../machines/activation.types.ts';
import type { Clock } from '../kernel/clock.ts';
import type { HardwareWallet } from './ports/hardwareWallet.ts';
import { platformRequest, type ActivationService } from './activationService.ts';
import type { PlatformActivationCommand } from './ports/chainFamily.ts';
import type { CoinRegistry, Reservation } from './coinRegistry.ts';
import type { Activation } from './activationOutcome.ts';
import { xstateClock } from './xstateClock.ts';
import { deviceSessionActor } from './deviceSession.ts';

type TaskActor = Actor<typeof enableEthTaskMachine>;

/** The hardware waits of a task (device connect, PIN, device answer/confirmation), in ms. @default 300_000 each */
export type TaskTimeouts = HardwareTimeouts;

export const DEFAULT_TASK_TIMEOUTS: TaskTimeouts = { connectMs: 300_000, pinMs: 300_000, confirmMs: 300_000 };

export interface EnableEthTasksDeps {
  readonly log: EventLog;
  readonly registry: CoinRegistry;
  readonly service: ActivationService;
  readonly statuses: TaskStatusProjection;
  readonly clock: Clock;
  readonly timeouts?: TaskTimeouts;
  /** The device adapter, created on first use (a service that never sees a device pays nothing). */
  readonly hardware: () => Promise<HardwareWallet>;
}

/**
 * The task manager of `task::enable_eth::*`: gives ids (never reused: the next follows the highest
 * in the log), runs one `enableEthTask` actor per task, persists what it emits, and answers
 * status from the projection.
 */
export class EnableEthTasks {
  readonly #deps: EnableEthTasksDeps;
  readonly #actors = new Map<number, TaskActor>();
  readonly #lastWrite = new Map<number, Promise<unknown>>();
  /**
   * Tasks cancelled or forgotten whose event may not be durable yet: they are gone from the moment
   * the decision is taken, so a concurrent request cannot read or cancel them a second time.
   */
  readonly #gone = new Set<number>();
  readonly #clock: ReturnType<typeof xstateClock>;
  #nextId: number;

  constructor(deps: EnableEthTasksDeps) {
    this.#deps = deps;
    this.#nextId = deps.statuses.nextTaskId;
    this.#clock = xstateClock(deps.clock);
  }

  /**
   * Starts a task. Fails at once only if the coin is active (or being activated); everything else
   * (unknown ticker, bad token, dead nodes, no device) ends the task with an error later.
   * Resolves once the task's creation is durable, so its id can never be handed out again.
   * `clientId` is recorded in `TaskCreated`: the `/event-stream` connections of that id hear the task.
   */
  async init(command: PlatformActivationCommand, clientId = 0): Promise<number> {
    const reservation = this.#deps.registry.reserve(platformRequest(command));
    const taskId = this.#nextId++;
    try {
      await this.#persist(taskId, {
        type: 'TaskCreated',
        data: { taskId, ticker: command.ticker, tokens: command.tokens.map((t) => t.ticker), keyPolicy: command.keyPolicy, getBalances: command.getBalances, clientId },
      });
    } catch (error) {
      reservation.release();
      throw error;
    }
    const actor = this.#createActor(taskId, command, reservation);
    this.#actors.set(taskId, actor);
    actor.start();
    return taskId;
  }

  /**
   * The task's status; with `forget` a finished task is forgotten by this read (resolves once that
   * is durable). Synchronous otherwise: status polling is the hot path.
   */
  status(taskId: number, forget: boolean): TaskRecord | Promise<TaskRecord> {
    const task = this.#visible(taskId, ErrorType.NoSuchTask, 400);
    if (!forget || (task.view.state !== 'Ok' && task.view.state !== 'Error')) return task;
    this.#gone.add(taskId);
    this.#actors.delete(taskId);
    return this.#persist(taskId, { type: 'TaskForgotten', data: { taskId } }).then(() => task);
  }

  /** Passes the device PIN to a task that awaits it. */
  async enterPin(taskId: number, pin: string): Promise<void> {
    this.#visible(taskId, ErrorType.NoSuchTask, 400);
    const actor = this.#actors.get(taskId);
    if (!actor?.getSnapshot().matches({ usingDevice: 'awaitingPin' })) {
      throw new ActivationError(ErrorType.InternalError, `task ${taskId} is not waiting for a PIN`);
    }
    actor.send({ type: 'PIN_ENTERED', pin });
    await this.#lastWrite.get(taskId);
  }

  /** Cancels a running task: its device and chain work are aborted and nothing is registered. */
  async cancel(taskId: number): Promise<void> {
    const task = this.#visible(taskId, ErrorType.NoSuchTask, 404);
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

  /** The task as the projection knows it, unless unknown, cancelled or forgotten. */
  #visible(taskId: number, errorType: typeof ErrorType.NoSuchTask, httpStatus: number): TaskRecord {
    const task = this.#deps.statuses.get(taskId);
    if (task === undefined || this.#gone.has(taskId) || task.view.state === 'Cancelled' || task.view.state === 'Forgotten') {
      throw new ActivationError(errorType, `No such task '${taskId}'`, taskId, { httpStatus });
    }
    return task;
  }

  #createActor(taskId: number, command: PlatformActivationCommand, reservation: Reservation): TaskActor {
    const { service, registry } = this.#deps;
    const machine = enableEthTaskMachine.provide({
      actors: {
        planActivation: fromPromise<PlannedTask, { taskId: number }>(async () => {
          const plan = service.planPlatform(command);
          return command.keyPolicy === KeyPolicy.Hardware ? { plan, hardwarePath: service.hardwarePath(command.ticker) } : { plan };
        }),
        waitForDevice: fromPromise(async ({ signal }) => (await this.#deps.hardware()).waitForDevice(signal)),
        deviceSession: deviceSessionActor(this.#deps.hardware),
        activateCoin: fromCallback(({ input, sendBack }) => {
          let settled = false;
          let activation: Promise<Activation>;
          try {
            activation = registry.activate(input.plan, { reservation, taskId, onChainRead: () => sendBack({ type: 'CHAIN_READ' }) });
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
    const timeouts = this.#deps.timeouts ?? DEFAULT_TASK_TIMEOUTS;
    const actor = createActor(machine, { input: { taskId, ticker: command.ticker, timeouts }, clock: this.#clock });
    actor.on('*', (event) => void this.#persist(taskId, event as DomainEvent).catch(() => undefined));
    // A finished task lives on in the projection only: release its coin and its actor.
    const finished = () => {
      reservation.release();
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
