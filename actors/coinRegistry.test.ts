import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCoin, fakePlan, fakeToken } from '../devnet/testing/fixtures.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoinRegistry } from './coinRegistry.ts';
import type { ActivateCoin } from './coinRequests.ts';
import { EmbeddedEventLog } from '../events/log/embeddedEventLog.ts';
import type { EventLog } from '../events/log/eventLog.ts';
import { ActivationVia, type ActivatedCoin, type ActivationPlan } from '../machines/activation.types.ts';
import { ErrorType, isActivationError, ActivationError } from '../spec/errors.ts';
import type { StoredEvent } from '../spec/events.ts';

interface Call {
  readonly plan: ActivationPlan;
  readonly signal: AbortSignal;
  resolve(coin: ActivatedCoin): void;
  reject(error: unknown): void;
}

/** A fake chain: every activation waits until the test settles it. */
function fakeChain() {
  const calls: Call[] = [];
  const activateCoin: ActivateCoin = (plan, signal) =>
    new Promise((resolve, reject) => calls.push({ plan, signal, resolve, reject }));
  const last = (): Call => {
    const call = calls.at(-1);
    assert.ok(call, 'activateCoin was not called');
    return call;
  };
  return { calls, activateCoin, last };
}

const plan = (ticker: string, tokens: string[] = []): ActivationPlan => fakePlan(ticker, tokens);

const coin = (ticker: string, tokens: string[] = []): ActivatedCoin => fakeCoin(ticker, tokens.map((t) => fakeToken(t, 6, 1n)));

const dirs: string[] = [];
const logs: EmbeddedEventLog[] = [];
afterEach(async () => {
  for (const log of logs.splice(0)) await log.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openLog(): Promise<EmbeddedEventLog> {
  const dir = await mkdtemp(join(tmpdir(), 'registry-'));
  dirs.push(dir);
  const log = await EmbeddedEventLog.open({ dir, sessionId: 'test-session' });
  logs.push(log);
  return log;
}

async function stored(log: EventLog): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read()) out.push(e);
  return out;
}

const typesOf = (events: StoredEvent[]) => events.map((e) => `${e.metadata.stream}:${e.type}`);

/** Whether `promise` has settled after the current macrotask queue drains. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

/** An event log whose appends reach the real log only when the test opens the gate. */
function gatedLog(inner: EventLog) {
  let open!: () => void;
  let gate = new Promise<void>((r) => (open = r));
  const pending: Promise<unknown>[] = [];
  const log: EventLog = {
    get sessionId() {
      return inner.sessionId;
    },
    get lastSeq() {
      return inner.lastSeq;
    },
    append(stream, events) {
      const write = gate.then(() => inner.append(stream, events));
      pending.push(write);
      return write;
    },
    read: (from) => inner.read(from),
    subscribe: (listener) => inner.subscribe(listener),
    close: () => inner.close(),
  };
  return {
    log,
    open() {
      open();
    },
    close() {
      gate = new Promise<void>((r) => (open = r));
    },
    pending,
  };
}

function expectAlreadyActivated(error: unknown, ticker: string): true {
  assert.ok(isActivationError(error), `not an ActivationError: ${String(error)}`);
  assert.equal(error.errorType, ErrorType.PlatformIsAlreadyActivated);
  assert.equal(error.data, ticker);
  assert.equal(error.httpStatus, 400);
  return true;
}

describe('CoinRegistry', () => {
  test('two concurrent activations of one ticker: exactly one proceeds, the other is refused at once', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    // two requests arriving in separate microtasks, as two HTTP handlers would
    // (wrapped so that awaiting the attempt does not wait for the activation itself)
    const attempts = [0, 1].map(() => Promise.resolve().then(() => ({ inner: registry.activate(plan('ETH', ['USDT-ERC20'])) })));
    const outcomes = await Promise.allSettled(attempts);
    // the refused one has already failed; the accepted one is still waiting on the chain
    const refused = outcomes.filter((o) => o.status === 'rejected');
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    assert.equal(refused.length, 1);
    assert.equal(accepted.length, 1);
    expectAlreadyActivated((refused[0] as PromiseRejectedResult).reason, 'ETH');
    assert.equal(chain.calls.length, 1, 'chain work started once');
    assert.equal(registry.view('ETH').state, 'activating');

    // and while still activating, a direct call throws synchronously
    assert.throws(() => registry.activate(plan('ETH')), (e) => expectAlreadyActivated(e, 'ETH'));
    assert.throws(() => registry.assertCanActivate(plan('ETH')), (e) => expectAlreadyActivated(e, 'ETH'));
    assert.doesNotThrow(() => registry.assertCanActivate(plan('BNB')), 'other tickers are independent');

    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    const activated = await (accepted[0] as PromiseFulfilledResult<{ inner: Promise<ActivatedCoin> }>).value.inner;
    assert.equal(activated.ticker, 'ETH');
    assert.equal(registry.view('ETH').state, 'active');
    assert.throws(() => registry.activate(plan('ETH')), (e) => expectAlreadyActivated(e, 'ETH'));
    assert.equal(chain.calls.length, 1);
    const events = await stored(log);
    assert.deepEqual(typesOf(events), ['coin.ETH:ActivationRequested', 'coin.ETH:CoinActivated'], 'the refused request left no event');
    await registry.stop();
  });

  test('activate resolves only once CoinActivated is on disk', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const pending = registry.activate(plan('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    const result = await pending;
    // read the file right away: no waiting, no retry
    const events = await stored(log);
    assert.deepEqual(typesOf(events), ['coin.ETH:ActivationRequested', 'coin.ETH:CoinActivated']);
    const activated = events[1] as Extract<StoredEvent, { type: 'CoinActivated' }>;
    assert.equal(activated.data.address, result.address);
    assert.deepEqual(activated.data.balance, { spendable: '1', unspendable: '0' });
    assert.deepEqual(
      events.map((e) => [e.metadata.seq, e.metadata.streamSeq]),
      [
        [1, 1],
        [2, 2],
      ],
    );
    await registry.stop();
  });

  test('with a slow log, activate stays pending until the write lands (and fails if the log fails)', async () => {
    const real = await openLog();
    const gated = gatedLog(real);
    const chain = fakeChain();
    const registry = new CoinRegistry({ log: gated.log, families: { activate: chain.activateCoin } });
    const pending = registry.activate(plan('ETH'));
    chain.last().resolve(coin('ETH'));
    assert.equal(await settledYet(pending), false, 'resolved before its events were durable');
    assert.equal(registry.view('ETH').state, 'active', 'the actor itself moved on');
    gated.open();
    await pending;
    assert.deepEqual(typesOf(await stored(real)), ['coin.ETH:ActivationRequested', 'coin.ETH:CoinActivated']);

    // the same rule for a failed activation
    const failing = new CoinRegistry({ log: gated.log, families: { activate: chain.activateCoin } });
    gated.close();
    const refused = failing.activate(plan('BNB'));
    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    assert.equal(await settledYet(refused), false, 'rejected before ActivationFailed was durable');
    gated.open();
    await assert.rejects(refused, (e) => isActivationError(e) && e.errorType === ErrorType.Transport);
    assert.deepEqual(typesOf(await stored(real)).slice(2), ['coin.BNB:ActivationRequested', 'coin.BNB:ActivationFailed']);
    await registry.stop();
    await failing.stop();
  });

  test('a log that cannot write turns success into InternalError', async () => {
    const chain = fakeChain();
    const broken: EventLog = {
      sessionId: 's',
      lastSeq: 0,
      append: () => Promise.reject(new Error('disk full')),
      read: async function* () {},
      subscribe: () => () => undefined,
      close: async () => undefined,
    };
    const registry = new CoinRegistry({ log: broken, families: { activate: chain.activateCoin } });
    const pending = registry.activate(plan('ETH'));
    chain.last().resolve(coin('ETH'));
    await assert.rejects(pending, (e) => isActivationError(e) && e.errorType === ErrorType.InternalError && /disk full/.test(e.message));
    await registry.stop();
  });

  test('the resolved coin lists only the tokens of this request', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const first = registry.activate(plan('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    await first;
    assert.deepEqual(await registry.disable('ETH', false), { passivized: true, tokens: [] });
    const second = registry.activate(plan('ETH', ['LINK-ERC20']));
    chain.last().resolve(coin('ETH', ['LINK-ERC20']));
    assert.deepEqual((await second).tokens.map((t) => t.ticker), ['LINK-ERC20']);
    assert.deepEqual(registry.view('ETH').coin?.tokens.map((t) => t.ticker), ['LINK-ERC20', 'USDT-ERC20', 'DAI-ERC20']);
    await registry.stop();
  });

  test('cancel aborts the chain work, records ActivationCancelled, and the coin can be activated again', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    assert.equal(await registry.cancel('ETH'), false, 'nothing to cancel');
    const pending = registry.activate(plan('ETH'));
    pending.catch(() => undefined);
    const first = chain.last();
    assert.equal(await registry.cancel('ETH'), true);
    assert.equal(first.signal.aborted, true);
    await assert.rejects(pending, (e) => isActivationError(e) && e.errorType === ErrorType.InternalError && /cancelled/.test(e.message));
    assert.equal(registry.view('ETH').state, 'inactive');
    assert.deepEqual(typesOf(await stored(log)), ['coin.ETH:ActivationRequested', 'coin.ETH:ActivationCancelled']);
    assert.equal(await registry.cancel('ETH'), false, 'already cancelled');

    const again = registry.activate(plan('ETH'));
    assert.equal(chain.calls.length, 2);
    chain.last().resolve(coin('ETH'));
    assert.equal((await again).ticker, 'ETH');
    assert.equal(registry.view('ETH').state, 'active');
    assert.equal(await registry.cancel('ETH'), false, 'an active coin is not cancelled');
    await registry.stop();
  });

  test('stop() aborts in-flight work, settles the pending activation, and flushes the log', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const eth = registry.activate(plan('ETH'));
    eth.catch(() => undefined);
    const bnb = registry.activate(plan('BNB'));
    bnb.catch(() => undefined);
    const [ethCall, bnbCall] = chain.calls;
    await registry.stop();
    assert.equal(ethCall!.signal.aborted, true);
    assert.equal(bnbCall!.signal.aborted, true);
    // a request waiting on the activation must not hang forever
    await assert.rejects(eth, (e) => isActivationError(e) && e.errorType === ErrorType.InternalError);
    await assert.rejects(bnb, (e) => isActivationError(e) && e.errorType === ErrorType.InternalError);
    assert.deepEqual(typesOf(await stored(log)).sort(), ['coin.BNB:ActivationRequested', 'coin.ETH:ActivationRequested']);
    // a stopped registry starts nothing new
    assert.throws(() => registry.activate(plan('MATIC')), (e) => isActivationError(e) && e.errorType === ErrorType.InternalError);
    assert.equal(chain.calls.length, 2);
  });

  test('disable: unknown coin is NoSuchCoin; passive keeps tokens; force lists them; disableToken records TokenDisabled', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    await assert.rejects(registry.disable('ETH', false), (e) => isActivationError(e) && e.errorType === ErrorType.NoSuchCoin && e.message === 'No such coin: ETH');
    const pending = registry.activate(plan('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    await assert.rejects(registry.disable('ETH', true), (e) => isActivationError(e) && e.errorType === ErrorType.NoSuchCoin, 'not while activating');
    chain.last().resolve(coin('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    await pending;

    await registry.disableToken('ETH', 'DAI-ERC20');
    assert.deepEqual(registry.view('ETH').coin?.tokens.map((t) => t.ticker), ['USDT-ERC20']);
    const noSuchToken = (ticker: string) => (e: unknown) =>
      isActivationError(e) && e.errorType === ErrorType.NoSuchCoin && e.message === `No such coin: ${ticker}`;
    await assert.rejects(registry.disableToken('ETH', 'DAI-ERC20'), noSuchToken('DAI-ERC20'), 'already disabled');
    await assert.rejects(registry.disableToken('BNB', 'USDT-ERC20'), noSuchToken('USDT-ERC20'), 'unknown platform');
    assert.deepEqual(await registry.disable('ETH', false), { passivized: true, tokens: [] });
    assert.equal(registry.view('ETH').state, 'passive');
    assert.deepEqual(registry.enabled().map((v) => [v.ticker, v.state]), [['ETH', 'passive']]);
    assert.deepEqual(await registry.disable('ETH', true), { passivized: false, tokens: ['USDT-ERC20'] });
    assert.equal(registry.view('ETH').state, 'inactive');
    assert.deepEqual(registry.enabled(), []);
    const events = await stored(log);
    assert.deepEqual(typesOf(events), [
      'coin.ETH:ActivationRequested',
      'coin.ETH:CoinActivated',
      'coin.ETH:TokenDisabled',
      'coin.ETH:CoinPassivated',
      'coin.ETH:CoinDisabled',
    ]);
    assert.deepEqual(events.at(-1)?.data, { ticker: 'ETH', tokens: ['USDT-ERC20'] });
    await registry.stop();
  });
});

/** A task's request for `ticker` with `tokens`. */
const taskRequest = (ticker: string, tokens: string[] = []) => ({ ticker, via: ActivationVia.EnableEthTask, tokens });

describe('CoinRegistry admission: one place, one message per method form', () => {
  const legacyRequest = (ticker: string, via: ActivationVia = ActivationVia.Enable) => {
    const planned: string[] = [];
    return { planned, request: { ticker, via, tokens: [], plan: () => (planned.push(ticker), fakePlan(ticker, [], { via })) } };
  };
  const expectLegacySentence = (ticker: string) => (e: unknown) => {
    expectAlreadyActivated(e, ticker);
    assert.equal((e as ActivationError).message, `Coin ${ticker} already initialized`);
    return true;
  };
  const expectBareTicker = (ticker: string) => (e: unknown) => {
    expectAlreadyActivated(e, ticker);
    assert.equal((e as ActivationError).message, ticker);
    return true;
  };

  test('Given a coin reserved by a running task, when others ask, then v2 gets the bare ticker, legacy the sentence, and nothing is planned', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const reservation = registry.reserve(taskRequest('ETH'));

    assert.throws(() => registry.activate(plan('ETH')), expectBareTicker('ETH'));
    assert.throws(() => registry.reserve(taskRequest('ETH')), expectBareTicker('ETH'));
    for (const via of [ActivationVia.Enable, ActivationVia.Electrum]) {
      const legacy = legacyRequest('ETH', via);
      assert.throws(() => registry.activate(legacy.request), expectLegacySentence('ETH'));
      assert.deepEqual(legacy.planned, [], 'admission comes before any check of the request');
    }
    assert.equal(chain.calls.length, 0);

    // the holder itself is admitted, and once it lets go others are too
    const held = registry.activate(plan('ETH'), { reservation });
    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    await assert.rejects(held, (e) => isActivationError(e) && e.errorType === ErrorType.Transport);
    assert.throws(() => registry.activate(plan('ETH')), expectBareTicker('ETH'), 'still held until the task ends');
    reservation.release();
    const legacy = legacyRequest('ETH');
    const after = registry.activate(legacy.request);
    assert.deepEqual(legacy.planned, ['ETH']);
    chain.last().resolve(coin('ETH'));
    await after;
    await registry.stop();
  });

  test('Given a passive platform with a token, when asked, then v2 re-activates it while legacy sees the platform and its token as initialized', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const first = registry.activate(plan('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    await first;
    assert.deepEqual(await registry.disable('ETH', false), { passivized: true, tokens: [] });

    assert.throws(() => registry.activate(legacyRequest('ETH').request), expectLegacySentence('ETH'));
    assert.throws(() => registry.activate(legacyRequest('USDT-ERC20').request), expectLegacySentence('USDT-ERC20'));
    assert.throws(() => registry.assertCanActivate(plan('USDT-ERC20')), expectBareTicker('USDT-ERC20'), 'and to v2, as a coin of its own');
    assert.doesNotThrow(() => registry.assertCanActivate(legacyRequest('DAI-ERC20').request), 'a token not enabled is free');

    const again = registry.activate(plan('ETH'));
    assert.equal(registry.view('ETH').state, 'activating');
    assert.throws(() => registry.activate(legacyRequest('USDT-ERC20').request), expectLegacySentence('USDT-ERC20'), 'kept while re-activating');
    chain.last().resolve(coin('ETH'));
    await again;
    await registry.stop();
  });

  test('Given an accepted activation, when it succeeds, then it resolves with the summary its CoinActivated event recorded, with the real attempt', async () => {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    const failed = registry.activate(plan('ETH'));
    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    await assert.rejects(failed);
    const second = registry.activate(plan('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    const { summary } = await second;
    const recorded = (await stored(log)).find((e) => e.type === 'CoinActivated');
    assert.equal(summary.attempt, 2);
    assert.deepEqual(recorded?.data, summary);
    await registry.stop();
  });
});

describe('CoinRegistry admission: one coin, one activation, as a coin of its own or as a token', () => {
  const legacy = (ticker: string, via: ActivationVia = ActivationVia.Enable) => fakePlan(ticker, [], { via });
  const v2 = (ticker: string, tokens: string[]) => fakePlan(ticker, tokens, { via: ActivationVia.EnableEthWithTokens });
  /** Asserts `run` is refused as already activated, naming `ticker` in the form of `via`. */
  const refusedNaming = (run: () => unknown, ticker: string, via: ActivationVia, why: string) =>
    assert.throws(
      run,
      (e) => {
        expectAlreadyActivated(e, ticker);
        const legacyForm = via === ActivationVia.Enable || via === ActivationVia.Electrum;
        assert.equal((e as ActivationError).message, legacyForm ? `Coin ${ticker} already initialized` : ticker);
        return true;
      },
      why,
    );

  async function setup() {
    const log = await openLog();
    const chain = fakeChain();
    const registry = new CoinRegistry({ log, families: { activate: chain.activateCoin } });
    return { log, chain, registry };
  }

  test('Given an ERC20 activated on its own (legacy enable), when a platform request lists it as a token, then it is refused naming the token, and no chain work starts', async () => {
    const { chain, registry } = await setup();
    const standalone = registry.activate(legacy('USDT-ERC20'));
    chain.last().resolve(coin('USDT-ERC20'));
    await standalone;

    refusedNaming(() => registry.activate(v2('ETH', ['DAI-ERC20', 'USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'v2');
    refusedNaming(() => registry.reserve(taskRequest('ETH', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthTask, 'a task init');
    assert.equal(chain.calls.length, 1, 'only the first activation reached the chain');
    assert.equal(registry.view('ETH').state, 'inactive', 'the refused platform is not held either');
    assert.equal(registry.view('ETH').coin, null);

    // the platform without the token is a coin of its own: free
    const eth = registry.activate(v2('ETH', ['DAI-ERC20']));
    chain.last().resolve(coin('ETH', ['DAI-ERC20']));
    await eth;
    // and once the standalone token is disabled, the platform may enable it with it
    await registry.disable('USDT-ERC20', false);
    await registry.disable('ETH', true);
    assert.doesNotThrow(() => registry.assertCanActivate(v2('ETH', ['USDT-ERC20'])));
    await registry.stop();
  });

  test('Given a platform activation in flight with a token, when the token is asked for by any form, then it is refused; once the activation fails, it is free', async () => {
    const { chain, registry } = await setup();
    const eth = registry.activate(v2('ETH', ['USDT-ERC20']));
    eth.catch(() => undefined);
    assert.equal(registry.view('ETH').state, 'activating');
    for (const via of [ActivationVia.Enable, ActivationVia.Electrum]) {
      refusedNaming(() => registry.activate(legacy('USDT-ERC20', via)), 'USDT-ERC20', via, via);
    }
    refusedNaming(() => registry.activate(v2('USDT-ERC20', [])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'v2, as a platform');
    refusedNaming(() => registry.reserve(taskRequest('USDT-ERC20')), 'USDT-ERC20', ActivationVia.EnableEthTask, 'a task, as a platform');
    refusedNaming(() => registry.activate(v2('TRX', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'another platform listing it');
    assert.doesNotThrow(() => registry.assertCanActivate(legacy('DAI-ERC20')), 'a token it does not list is free');

    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    await assert.rejects(eth);
    const alone = registry.activate(legacy('USDT-ERC20'));
    chain.last().resolve(coin('USDT-ERC20'));
    await alone;
    await registry.stop();
  });

  test('Given a token activated on its own in flight, when a platform request lists it, then it is refused naming the token', async () => {
    const { chain, registry } = await setup();
    const alone = registry.activate(legacy('USDT-ERC20'));
    alone.catch(() => undefined);
    refusedNaming(() => registry.activate(v2('ETH', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'v2');
    refusedNaming(() => registry.reserve(taskRequest('ETH', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthTask, 'task');
    assert.equal(chain.calls.length, 1);
    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    await assert.rejects(alone);
    assert.doesNotThrow(() => registry.assertCanActivate(v2('ETH', ['USDT-ERC20'])), 'free once it failed');
    await registry.stop();
  });

  test('Given a task holding a platform and its tokens, when others ask for a token, then they are refused while the holder activates them; released, they are free', async () => {
    const { chain, registry } = await setup();
    const reservation = registry.reserve(taskRequest('ETH', ['USDT-ERC20']));
    refusedNaming(() => registry.activate(legacy('USDT-ERC20')), 'USDT-ERC20', ActivationVia.Enable, 'a legacy enable of the token');
    refusedNaming(() => registry.activate(v2('TRX', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'another platform');
    refusedNaming(() => registry.reserve(taskRequest('USDT-ERC20')), 'USDT-ERC20', ActivationVia.EnableEthTask, 'a task of the token');

    const held = registry.activate(fakePlan('ETH', ['USDT-ERC20'], { via: ActivationVia.EnableEthTask }), { reservation });
    chain.last().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
    await assert.rejects(held);
    refusedNaming(() => registry.activate(legacy('USDT-ERC20')), 'USDT-ERC20', ActivationVia.Enable, 'held until the task ends');
    reservation.release();
    assert.doesNotThrow(() => registry.assertCanActivate(legacy('USDT-ERC20')));
    await registry.stop();
  });

  test('Given a token held by a platform, when a request names it as its own coin, then it is refused (the token is a coin, whatever form)', async () => {
    const { chain, registry } = await setup();
    const eth = registry.activate(v2('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    await eth;
    refusedNaming(() => registry.activate(v2('USDT-ERC20', ['DAI-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'v2');
    refusedNaming(() => registry.activate(legacy('USDT-ERC20', ActivationVia.Electrum)), 'USDT-ERC20', ActivationVia.Electrum, 'electrum');
    // the platform itself named as a token of another request
    refusedNaming(() => registry.activate(v2('TRX', ['ETH'])), 'ETH', ActivationVia.EnableEthWithTokens, 'an active platform listed as a token');
    await registry.stop();
  });

  test('Given a passive platform keeping a token, when it is re-activated listing that token, then it is admitted; another platform, or the token as a coin, is refused; a passive platform is never a token', async () => {
    const { chain, registry } = await setup();
    const eth = registry.activate(v2('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    await eth;
    await registry.disable('ETH', false);
    assert.equal(registry.view('ETH').state, 'passive');

    refusedNaming(() => registry.activate(v2('TRX', ['USDT-ERC20'])), 'USDT-ERC20', ActivationVia.EnableEthWithTokens, 'another platform');
    refusedNaming(() => registry.activate(v2('TRX', ['ETH'])), 'ETH', ActivationVia.EnableEthWithTokens, 'a passive platform as a token');
    refusedNaming(() => registry.reserve(taskRequest('USDT-ERC20')), 'USDT-ERC20', ActivationVia.EnableEthTask, 'the kept token as a platform');

    const again = registry.activate(v2('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    refusedNaming(() => registry.activate(legacy('DAI-ERC20')), 'DAI-ERC20', ActivationVia.Enable, 'a new token of the re-activation, in flight');
    chain.last().resolve(coin('ETH', ['USDT-ERC20', 'DAI-ERC20']));
    await again;
    assert.deepEqual(registry.view('ETH').coin?.tokens.map((t) => t.ticker), ['USDT-ERC20', 'DAI-ERC20'], 'each token once');

    // disabling the platform with force lets its tokens go
    await registry.disable('ETH', true);
    assert.doesNotThrow(() => registry.assertCanActivate(legacy('USDT-ERC20')));
    assert.doesNotThrow(() => registry.assertCanActivate(v2('TRX', ['DAI-ERC20'])));
    await registry.stop();
  });

  test('Given a token disabled alone, then it is free again; a plan whose tokens differ from its admitted request is refused and registers nothing', async () => {
    const { log, chain, registry } = await setup();
    const eth = registry.activate(v2('ETH', ['USDT-ERC20']));
    chain.last().resolve(coin('ETH', ['USDT-ERC20']));
    await eth;
    await registry.disableToken('ETH', 'USDT-ERC20');
    const alone = registry.activate(legacy('USDT-ERC20'));
    chain.last().resolve(coin('USDT-ERC20'));
    await alone;

    const before = (await stored(log)).length;
    const sneaky = { ticker: 'TRX', via: ActivationVia.EnableEthWithTokens, tokens: [], plan: () => v2('TRX', ['USDT-ERC20']) };
    assert.throws(() => registry.activate(sneaky), (e) => isActivationError(e) && e.errorType === ErrorType.InternalError);
    assert.equal(registry.view('TRX').state, 'inactive');
    assert.equal((await stored(log)).length, before);
    await registry.stop();
  });
});
