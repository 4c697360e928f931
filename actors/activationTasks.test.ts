import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCoin } from '../devnet/testing/fixtures.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActivationTasks } from './activationTasks.ts';
import { CoinRegistry } from './coinRegistry.ts';
import type { ActivateCoin } from './coinRequests.ts';
import type { ActivationService } from './activationService.ts';
import type { PlatformActivationCommand } from './ports/chainFamily.ts';
import { EmbeddedEventLog } from '../events/log/embeddedEventLog.ts';
import type { EventLog } from '../events/log/eventLog.ts';
import { TaskStatusProjection } from '../events/projections/taskStatus.ts';
import { ManualClock } from '../devnet/testing/manualClock.ts';
import { ActivationVia, ChainFamilyId, KeyPolicy, type ActivatedCoin, type ActivationPlan } from '../machines/activation.types.ts';
import { ErrorType, isActivationError } from '../spec/errors.ts';
import type { StoredEvent } from '../spec/events.ts';
import { TaskKind } from '../spec/taskKind.ts';

const ETH_TASK = TaskKind.EnableEth;

/**
 * Cancel racing completion, made deterministic: a fake chain the test answers, and a registry
 * whose event writes reach the (real) log only when the test opens a gate. The task manager's own
 * events go straight to the log, so its status shows where the task is.
 */

interface ChainCall {
  readonly plan: ActivationPlan;
  readonly signal: AbortSignal;
  resolve(coin: ActivatedCoin): void;
}

function fakeChain() {
  const calls: ChainCall[] = [];
  const activateCoin: ActivateCoin = (plan, signal) => new Promise((resolve) => calls.push({ plan, signal, resolve }));
  return { calls, activateCoin };
}

const coin = (ticker: string): ActivatedCoin => fakeCoin(ticker);

function command(ticker: string): PlatformActivationCommand {
  return { kind: 'platform', ticker, via: ActivationVia.EnableEthTask, nodes: [{ url: 'http://node.invalid' }], tokens: [], getBalances: true, keyPolicy: KeyPolicy.ContextPrivKey };
}

/** Planning without a coins file: every ticker is an EVM platform. */
const planner = {
  plan: (c: PlatformActivationCommand): ActivationPlan => ({
    ticker: c.ticker,
    family: ChainFamilyId.Evm,
    via: c.via,
    tokens: [],
    getBalances: c.getBalances,
    params: {},
  }),
  hardwareRead: () => ({ path: "m/44'/60'/0'/0/0" }),
  withDeviceAccount: (plan: ActivationPlan) => plan,
} as unknown as ActivationService;

/** The registry's view of the log: appends wait for `open()`. */
function gatedLog(inner: EventLog) {
  let open!: () => void;
  let gate = new Promise<void>((r) => (open = r));
  const log: EventLog = {
    get sessionId() {
      return inner.sessionId;
    },
    get lastSeq() {
      return inner.lastSeq;
    },
    append: (stream, events) => gate.then(() => inner.append(stream, events)),
    read: (from) => inner.read(from),
    subscribe: (listener) => inner.subscribe(listener),
    close: () => inner.close(),
  };
  return {
    log,
    open: () => open(),
    close: () => {
      gate = new Promise<void>((r) => (open = r));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world() {
  const dir = await mkdtemp(join(tmpdir(), 'tasks-'));
  const log = await EmbeddedEventLog.open({ dir, sessionId: 'test-session' });
  const statuses = new TaskStatusProjection();
  log.subscribe((e) => statuses.apply(e));
  const gated = gatedLog(log);
  gated.open();
  const chain = fakeChain();
  const registry = new CoinRegistry({ log: gated.log, families: { activate: chain.activateCoin } });
  const tasks = new ActivationTasks({
    log,
    registry,
    service: planner,
    statuses,
    clock: new ManualClock(),
    hardware: () => Promise.reject(new Error('no device in this test')),
  });
  cleanups.push(async () => {
    await tasks.stop();
    gated.open();
    await registry.stop();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });
  const events = async (): Promise<StoredEvent[]> => {
    const out: StoredEvent[] = [];
    for await (const e of log.read()) out.push(e);
    return out;
  };
  /** Types of one stream's events. */
  const streamTypes = async (stream: string) => (await events()).filter((e) => e.metadata.stream === stream).map((e) => e.type);
  const view = (taskId: number) => statuses.get(taskId)?.view;
  return { log, gated, chain, registry, tasks, statuses, events, streamTypes, view };
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

function expectTaskError(errorType: string, httpStatus: number, data: unknown) {
  return (e: unknown) => {
    assert.ok(isActivationError(e), String(e));
    assert.equal(e.errorType, errorType);
    assert.equal(e.httpStatus, httpStatus);
    assert.deepEqual(e.data, data);
    return true;
  };
}

describe('ActivationTasks: cancel racing completion', () => {
  test('cancel before the chain read finished: success, the call is aborted, nothing registered even if the chain answers later', async () => {
    const w = await world();
    const id = await w.tasks.init({ kind: ETH_TASK, command: command('ETH') });
    await until(() => w.chain.calls.length === 1 && w.view(id)?.state === 'InProgress', 'the chain call');
    await until(() => (w.view(id) as { details?: string }).details === 'RequestingWalletBalance', 'RequestingWalletBalance');

    await w.tasks.cancel(ETH_TASK, id);
    const call = w.chain.calls[0]!;
    assert.equal(call.signal.aborted, true);
    call.resolve(coin('ETH')); // the node answers after all
    // The coin's cancellation is written after the task's answer: wait for it (under load an
    // append can take longer than any fixed pause), then let the late answer be handled.
    const deadline = Date.now() + 5_000;
    while (!(await w.streamTypes('coin.ETH')).includes('ActivationCancelled') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));

    assert.equal(w.registry.view('ETH').state, 'inactive');
    assert.deepEqual(w.registry.enabled(), []);
    assert.throws(() => w.tasks.status(ETH_TASK, id, false), expectTaskError(ErrorType.NoSuchTask, 400, id));
    await assert.rejects(w.tasks.cancel(ETH_TASK, id), expectTaskError(ErrorType.NoSuchTask, 404, id));
    assert.deepEqual(await w.streamTypes(`task.${id}`), ['TaskCreated', 'TaskProgressed', 'TaskProgressed', 'TaskCancelled']);
    assert.deepEqual(await w.streamTypes('coin.ETH'), ['ActivationRequested', 'ActivationCancelled']);

    // The ticker is free at once.
    const next = await w.tasks.init({ kind: ETH_TASK, command: command('ETH') });
    assert.equal(next, id + 1);
    await until(() => w.chain.calls.length === 2, 'the second chain call');
    w.chain.calls[1]!.resolve(coin('ETH'));
    await until(() => w.view(next)?.state === 'Ok', 'the second task to succeed');
  });

  test('cancel once the chain read is done (Finishing, outcome not yet durable): TaskFinished 409, the task ends Ok', async () => {
    const w = await world();
    w.gated.close(); // the registry's events (CoinActivated) wait
    const id = await w.tasks.init({ kind: ETH_TASK, command: command('ETH') });
    await until(() => w.chain.calls.length === 1, 'the chain call');
    w.chain.calls[0]!.resolve(coin('ETH'));
    await until(() => (w.view(id) as { details?: string }).details === 'Finishing', 'Finishing');
    assert.equal(w.registry.view('ETH').state, 'active', 'the coin actor moved on');
    assert.deepEqual(await w.streamTypes('coin.ETH'), [], 'but nothing of it is durable yet');

    await assert.rejects(w.tasks.cancel(ETH_TASK, id), expectTaskError(ErrorType.TaskFinished, 409, id));
    assert.equal(w.chain.calls[0]!.signal.aborted, false);
    assert.deepEqual((await w.tasks.status(ETH_TASK, id, false)).view, { state: 'InProgress', details: 'Finishing' });

    w.gated.open();
    await until(() => w.view(id)?.state === 'Ok', 'the task to succeed');
    assert.equal(w.registry.view('ETH').state, 'active');
    assert.deepEqual(await w.streamTypes('coin.ETH'), ['ActivationRequested', 'CoinActivated']);
    const taskTypes = await w.streamTypes(`task.${id}`);
    assert.equal(taskTypes.at(-1), 'TaskSucceeded');
    assert.equal(taskTypes.includes('TaskCancelled'), false);
    await assert.rejects(w.tasks.cancel(ETH_TASK, id), expectTaskError(ErrorType.TaskFinished, 409, id));
  });

  for (const order of ['answer, then cancel', 'cancel, then answer'] as const) {
    test(`chain answer and cancel in the same tick (${order}): the cancel wins`, async () => {
      const w = await world();
      const id = await w.tasks.init({ kind: ETH_TASK, command: command('ETH') });
      await until(() => w.chain.calls.length === 1 && (w.view(id) as { details?: string }).details === 'RequestingWalletBalance', 'the chain call');
      const call = w.chain.calls[0]!;
      let cancelled: Promise<void>;
      if (order === 'answer, then cancel') {
        call.resolve(coin('ETH'));
        cancelled = w.tasks.cancel(ETH_TASK, id);
      } else {
        cancelled = w.tasks.cancel(ETH_TASK, id);
        call.resolve(coin('ETH'));
      }
      await cancelled;
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(w.registry.view('ETH').state, 'inactive');
      assert.deepEqual(await w.streamTypes('coin.ETH'), ['ActivationRequested', 'ActivationCancelled']);
      assert.equal((await w.streamTypes(`task.${id}`)).at(-1), 'TaskCancelled');
    });
  }

  test('whatever the interleaving, exactly one of "cancelled, nothing registered" and "TaskFinished, coin active"', async () => {
    const w = await world();
    const outcomes = { cancelled: 0, finished: 0 };
    const ticks = (n: number) => (n === 0 ? Promise.resolve() : new Promise<void>((r) => setImmediate(() => ticks(n - 1).then(r))));
    for (let i = 0; i < 40; i++) {
      const ticker = `EVM${i}`;
      const id = await w.tasks.init({ kind: ETH_TASK, command: command(ticker) });
      await until(() => w.chain.calls.length === i + 1 && (w.view(id) as { details?: string }).details === 'RequestingWalletBalance', 'the chain call');
      const answer = ticks(i % 4).then(() => w.chain.calls[i]!.resolve(coin(ticker)));
      const cancel = ticks((i >> 2) % 4).then(() => w.tasks.cancel(ETH_TASK, id).then(() => 'cancelled' as const, (e: unknown) => e));
      const [, outcome] = await Promise.all([answer, cancel]);
      await until(() => ['Ok', 'Cancelled'].includes(w.view(id)!.state), 'the task to end');
      await until(() => w.registry.view(ticker).state !== 'activating', 'the coin to settle');
      const coinTypes = await w.streamTypes(`coin.${ticker}`);
      const taskTypes = await w.streamTypes(`task.${id}`);
      if (outcome === 'cancelled') {
        outcomes.cancelled += 1;
        assert.equal(w.registry.view(ticker).state, 'inactive', `${ticker}: cancelled but registered`);
        assert.equal(coinTypes.includes('CoinActivated'), false);
        assert.equal(taskTypes.includes('TaskSucceeded'), false);
      } else {
        outcomes.finished += 1;
        expectTaskError(ErrorType.TaskFinished, 409, id)(outcome);
        assert.equal(w.registry.view(ticker).state, 'active');
        await until(() => w.view(id)!.state === 'Ok', 'Ok');
        assert.equal(taskTypes.includes('TaskCancelled'), false);
      }
    }
    assert.ok(outcomes.cancelled > 0 && outcomes.finished > 0, `both outcomes exercised: ${JSON.stringify(outcomes)}`);
  });
});
