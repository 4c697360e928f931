import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCoin, fakePlan, fakeToken } from '../devnet/testing/fixtures.ts';
import { coinSettings } from '../devnet/testkits/statusScenario.ts';
import { createActor, fromPromise, waitFor } from 'xstate';
import { coinActivationMachine, heldTokens } from './coinActivation.machine.ts';
import { ActivationVia, type ActivatedCoin, type ActivatedToken, type ActivationPlan } from './activation.types.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';

/** One invocation of the fake `activateCoin`: what it was given, and how to finish it. */
interface Call {
  readonly plan: ActivationPlan;
  readonly signal: AbortSignal;
  resolve(coin: ActivatedCoin): void;
  reject(error: unknown): void;
}

/** A machine whose chain work is a promise the test settles by hand. */
function harness(ticker = 'ETH') {
  const calls: Call[] = [];
  const machine = coinActivationMachine.provide({
    actors: {
      activateCoin: fromPromise<ActivatedCoin, ActivationPlan>(
        ({ input, signal }) => new Promise((resolve, reject) => calls.push({ plan: input, signal, resolve, reject })),
      ),
    },
  });
  const actor = createActor(machine, { input: { ticker } });
  const events: DomainEvent[] = [];
  actor.on('*', (event) => events.push(event as DomainEvent));
  actor.start();
  const state = () => actor.getSnapshot().value;
  /** The last call, asserting there is one. */
  const lastCall = (): Call => {
    const call = calls.at(-1);
    assert.ok(call, 'activateCoin was not invoked');
    return call;
  };
  return { actor, calls, events, state, lastCall };
}

const plan = (tokens: string[], overrides: Partial<ActivationPlan> = {}): ActivationPlan =>
  fakePlan('ETH', tokens, { params: { nodes: ['http://node.invalid/?apikey=secret'] }, ...overrides });

const token = fakeToken;

const coin = (tokens: ActivatedToken[], overrides: Partial<ActivatedCoin> = {}): ActivatedCoin =>
  fakeCoin('ETH', tokens, {
    pubkey: `04${'ab'.repeat(64)}`,
    currentBlock: 42,
    balance: { spendable: 1_234_500_000_000_000_001n, unspendable: 7n },
    connection: { secret: 'node handle' },
    ...overrides,
  });

/** Brings a harness to `active` with the given tokens (all with a balance of 1 unit). */
async function activated(tokens: string[]) {
  const h = harness();
  h.actor.send({ type: 'ACTIVATE', plan: plan(tokens) });
  h.lastCall().resolve(coin(tokens.map((t) => token(t, 6, 1n))));
  await waitFor(h.actor, (s) => s.matches('active'));
  return h;
}

const tickers = (c: ActivatedCoin | null) => c?.tokens.map((t) => t.ticker) ?? null;
const types = (events: DomainEvent[]) => events.map((e) => e.type);

describe('coinActivation machine', () => {
  describe('Given an inactive coin', () => {
    test('when ACTIVATE is sent and the chain work succeeds, then it goes activating → active with ActivationRequested, then CoinActivated with exact amounts', async () => {
      const h = harness();
      assert.equal(h.state(), 'inactive');
      const requested = plan(['USDT-ERC20', 'DAI-ERC20', 'NOBAL-ERC20'], { getBalances: true });
      h.actor.send({ type: 'ACTIVATE', plan: requested });
      assert.equal(h.state(), 'activating');
      assert.equal(h.calls.length, 1);
      assert.deepEqual(h.lastCall().plan, requested, 'the invoked actor receives the plan');
      assert.deepEqual(h.events, [
        {
          type: 'ActivationRequested',
          data: {
            ticker: 'ETH',
            family: 'evm',
            via: 'enable_eth_with_tokens',
            tokens: ['USDT-ERC20', 'DAI-ERC20', 'NOBAL-ERC20'],
            getBalances: true,
            attempt: 1,
          },
        },
      ]);

      const result = coin([
        token('USDT-ERC20', 6, 1_234_567_891n, 500_000n),
        token('DAI-ERC20', 18, 5n * 10n ** 18n + 1n),
        token('NOBAL-ERC20', 8),
      ]);
      h.lastCall().resolve(result);
      const snapshot = await waitFor(h.actor, (s) => s.matches('active'));
      assert.equal(snapshot.context.coin?.address, result.address);
      assert.equal(snapshot.context.coin?.connection, result.connection, 'the connection handle is kept for later reads');
      assert.deepEqual(tickers(snapshot.context.coin), ['USDT-ERC20', 'DAI-ERC20', 'NOBAL-ERC20']);
      assert.equal(snapshot.context.lastError, null);
      assert.deepEqual(types(h.events), ['ActivationRequested', 'CoinActivated']);
      assert.deepEqual(h.events[1], {
        type: 'CoinActivated',
        data: {
          ticker: 'ETH',
          family: 'evm',
          address: '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d',
          pubkey: `04${'ab'.repeat(64)}`,
          derivationMethod: 'Iguana',
          currentBlock: 42,
          balance: { spendable: '1.234500000000000001', unspendable: '0.000000000000000007' },
          tokens: [
            { ticker: 'USDT-ERC20', contractAddress: token('USDT-ERC20', 6).contractAddress, decimals: 6, balance: { spendable: '1234.567891', unspendable: '0.5' } },
            { ticker: 'DAI-ERC20', contractAddress: token('DAI-ERC20', 18).contractAddress, decimals: 18, balance: { spendable: '5.000000000000000001', unspendable: '0' } },
            { ticker: 'NOBAL-ERC20', contractAddress: token('NOBAL-ERC20', 8).contractAddress, decimals: 8 },
          ],
          attempt: 1,
        },
      });
      assert.doesNotMatch(JSON.stringify(h.events), /secret|node handle/, 'no plan params or connection in events');
    });

    test('when the plan carries swap contracts, then ActivationRequested records them, an absent fallback as null', () => {
      const h = harness();
      const swapContracts = { swapContractAddress: '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80', fallbackSwapContract: null };
      h.actor.send({ type: 'ACTIVATE', plan: plan([], { swapContracts }) });
      assert.deepEqual((h.events[0] as Extract<DomainEvent, { type: 'ActivationRequested' }>).data.swapContracts, swapContracts);
    });

    test('when it is activated without balances, then the CoinActivated event has no balance fields', async () => {
      const h = harness();
      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20'], { getBalances: false }) });
      assert.equal((h.events[0] as Extract<DomainEvent, { type: 'ActivationRequested' }>).data.getBalances, false);
      const { balance: _, ...noBalance } = coin([token('USDT-ERC20', 6)]);
      h.lastCall().resolve(noBalance);
      await waitFor(h.actor, (s) => s.matches('active'));
      const activatedEvent = h.events[1] as Extract<DomainEvent, { type: 'CoinActivated' }>;
      assert.equal('balance' in activatedEvent.data, false);
      assert.equal('balance' in activatedEvent.data.tokens[0]!, false);
    });

    test('when the activation fails, then it is inactive with lastError and ActivationFailed, and the next attempt is numbered 2', async () => {
      const h = harness();
      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20']) });
      h.lastCall().reject(new ActivationError(ErrorType.Transport, 'all 1 node(s) failed', 'all 1 node(s) failed'));
      const failed = await waitFor(h.actor, (s) => !s.matches('activating'));
      assert.equal(failed.value, 'inactive');
      assert.equal(failed.context.lastError?.errorType, ErrorType.Transport);
      assert.equal(failed.context.lastError?.message, 'all 1 node(s) failed');
      assert.equal(failed.context.coin, null);
      assert.equal(failed.context.plan, null);
      assert.deepEqual(h.events.slice(1), [
        {
          type: 'ActivationFailed',
          data: { ticker: 'ETH', error: { errorType: 'Transport', message: 'all 1 node(s) failed', data: 'all 1 node(s) failed' }, attempt: 1 },
        },
      ]);

      // a non-domain failure is recorded as InternalError; lastError is cleared by the new attempt
      h.actor.send({ type: 'ACTIVATE', plan: plan([]) });
      assert.equal(h.actor.getSnapshot().context.lastError, null, 'a new attempt clears the previous error');
      assert.equal(h.calls.length, 2);
      h.lastCall().reject(new TypeError('boom'));
      const again = await waitFor(h.actor, (s) => !s.matches('activating'));
      assert.equal(again.value, 'inactive');
      assert.equal(again.context.lastError?.errorType, ErrorType.InternalError);
      assert.deepEqual(h.events.at(-1), {
        type: 'ActivationFailed',
        data: { ticker: 'ETH', error: { errorType: 'InternalError', message: 'boom' }, attempt: 2 },
      });
      assert.equal((h.events.at(-2) as Extract<DomainEvent, { type: 'ActivationRequested' }>).data.attempt, 2);
    });
  });

  describe('Given a coin in any state', () => {
    test('when asked whether it accepts ACTIVATE, then only inactive and passive do', async () => {
      const h = harness();
      const canActivate = () => h.actor.getSnapshot().can({ type: 'ACTIVATE', plan: plan([]) });
      assert.equal(canActivate(), true, 'inactive');
      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20']) });
      assert.equal(canActivate(), false, 'activating');
      // a second ACTIVATE while activating changes nothing and starts no chain work
      h.actor.send({ type: 'ACTIVATE', plan: plan(['DAI-ERC20']) });
      assert.equal(h.calls.length, 1);
      assert.equal(h.actor.getSnapshot().context.attempt, 1);
      h.lastCall().resolve(coin([token('USDT-ERC20', 6, 1n)]));
      await waitFor(h.actor, (s) => s.matches('active'));
      assert.equal(canActivate(), false, 'active');
      h.actor.send({ type: 'ACTIVATE', plan: plan([]) });
      assert.equal(h.state(), 'active');
      assert.equal(h.calls.length, 1);
      assert.deepEqual(types(h.events), ['ActivationRequested', 'CoinActivated']);
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      assert.equal(canActivate(), true, 'passive');
      h.actor.send({ type: 'DISABLE', force: true });
      assert.equal(h.state(), 'inactive');
      assert.equal(canActivate(), true, 'inactive again');
    });
  });

  describe('Given a coin being activated', () => {
    test('when CANCEL is sent, then the chain work is aborted and ActivationCancelled emitted, and a late result is ignored', async () => {
      const h = harness();
      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20']) });
      const first = h.lastCall();
      assert.equal(first.signal.aborted, false);
      h.actor.send({ type: 'CANCEL' });
      assert.equal(first.signal.aborted, true, 'the invoked actor is aborted');
      assert.equal(h.state(), 'inactive');
      assert.equal(h.actor.getSnapshot().context.coin, null);
      assert.deepEqual(h.events.at(-1), { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 1 } });

      // the aborted work finishing anyway must not activate the coin
      first.resolve(coin([token('USDT-ERC20', 6, 1n)]));
      await new Promise((r) => setImmediate(r));
      assert.equal(h.state(), 'inactive');
      assert.deepEqual(types(h.events), ['ActivationRequested', 'ActivationCancelled']);

      // CANCEL outside activating does nothing
      h.actor.send({ type: 'CANCEL' });
      assert.equal(h.events.length, 2);

      // and the coin can be activated again
      h.actor.send({ type: 'ACTIVATE', plan: plan([]) });
      assert.equal(h.calls.length, 2);
      assert.equal(h.lastCall().signal.aborted, false);
      h.lastCall().resolve(coin([]));
      await waitFor(h.actor, (s) => s.matches('active'));
      assert.equal((h.events.at(-1) as Extract<DomainEvent, { type: 'CoinActivated' }>).data.attempt, 2);
    });

    test('when the actor is stopped, then the chain work is aborted', () => {
      const h = harness();
      h.actor.send({ type: 'ACTIVATE', plan: plan([]) });
      const call = h.lastCall();
      h.actor.stop();
      assert.equal(call.signal.aborted, true);
    });
  });

  describe('Given an active platform', () => {
    test('when DISABLE is sent without force, then it stays passive with its tokens; with force, then it is disabled with them', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      assert.deepEqual(tickers(h.actor.getSnapshot().context.coin), ['USDT-ERC20', 'DAI-ERC20'], 'tokens stay enabled');
      assert.deepEqual(h.events.at(-1), { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20', 'DAI-ERC20'] } });

      // a second DISABLE without force changes nothing
      const count = h.events.length;
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      assert.equal(h.events.length, count);

      h.actor.send({ type: 'DISABLE', force: true });
      assert.equal(h.state(), 'inactive');
      assert.equal(h.actor.getSnapshot().context.coin, null);
      assert.deepEqual(h.events.at(-1), { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: ['USDT-ERC20', 'DAI-ERC20'] } });
    });

    test('when DISABLE is sent with force, then CoinDisabled lists the tokens; without tokens, then DISABLE disables outright', async () => {
      const withTokens = await activated(['USDT-ERC20', 'DAI-ERC20']);
      withTokens.actor.send({ type: 'DISABLE', force: true });
      assert.equal(withTokens.state(), 'inactive');
      assert.deepEqual(withTokens.events.at(-1), { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: ['USDT-ERC20', 'DAI-ERC20'] } });
      assert.equal(withTokens.events.filter((e) => e.type === 'CoinPassivated').length, 0);

      const bare = await activated([]);
      bare.actor.send({ type: 'DISABLE', force: false });
      assert.equal(bare.state(), 'inactive');
      assert.deepEqual(bare.events.at(-1), { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } });
    });

    test('when DISABLE_TOKEN is sent, then the token is removed with TokenDisabled, and an unknown token is ignored', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'USDT-ERC20' });
      assert.equal(h.state(), 'active');
      assert.deepEqual(tickers(h.actor.getSnapshot().context.coin), ['DAI-ERC20']);
      assert.deepEqual(h.events.at(-1), { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });

      const count = h.events.length;
      const coinBefore = h.actor.getSnapshot().context.coin;
      for (const ticker of ['USDT-ERC20', 'NOPE-ERC20', 'ETH']) h.actor.send({ type: 'DISABLE_TOKEN', ticker });
      assert.equal(h.events.length, count, 'no event for an unknown or already disabled token');
      assert.equal(h.actor.getSnapshot().context.coin, coinBefore);
      assert.equal(h.state(), 'active');

      // also while passive: the last token takes the passive platform with it
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'DAI-ERC20' });
      assert.equal(h.state(), 'inactive');
      assert.deepEqual(types(h.events.slice(-2)), ['TokenDisabled', 'CoinDisabled']);

      // never while activating from inactive (there are no tokens yet)
      const fresh = harness();
      fresh.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20']) });
      fresh.actor.send({ type: 'DISABLE_TOKEN', ticker: 'USDT-ERC20' });
      assert.deepEqual(types(fresh.events), ['ActivationRequested']);

      // and never while inactive
      const idle = harness();
      idle.actor.send({ type: 'DISABLE_TOKEN', ticker: 'USDT-ERC20' });
      assert.deepEqual(idle.events, []);
    });
  });

  describe('Given a passive platform with tokens', () => {
    test('when its last token is disabled, then the platform goes with it', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'USDT-ERC20' });
      assert.equal(h.state(), 'passive', 'one token left keeps it passive');
      const before = h.events.length;
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'DAI-ERC20' });
      assert.equal(h.state(), 'inactive');
      assert.equal(h.actor.getSnapshot().context.coin, null);
      assert.deepEqual(h.events.slice(before), [
        { type: 'TokenDisabled', data: { ticker: 'DAI-ERC20', platform: 'ETH' } },
        { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: [] } },
      ]);
    });

    test('when ACTIVATE succeeds, then the earlier tokens are kept next to the new ones (fresh reads win)', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      const oldUsdt = h.actor.getSnapshot().context.coin!.tokens[0]!;
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send({ type: 'ACTIVATE', plan: plan(['DAI-ERC20', 'LINK-ERC20']) });
      assert.equal(h.state(), 'activating');
      assert.deepEqual(h.lastCall().plan.tokens, ['DAI-ERC20', 'LINK-ERC20']);
      h.lastCall().resolve(coin([token('DAI-ERC20', 18, 9n * 10n ** 18n), token('LINK-ERC20', 18, 3n)], { currentBlock: 99 }));
      const snapshot = await waitFor(h.actor, (s) => s.matches('active'));
      const tokens = snapshot.context.coin!.tokens;
      assert.deepEqual(tokens.map((t) => t.ticker), ['DAI-ERC20', 'LINK-ERC20', 'USDT-ERC20']);
      assert.equal(tokens[0]!.balance?.spendable, 9n * 10n ** 18n, 'the re-read token has its fresh balance');
      assert.deepEqual(tokens[2], oldUsdt, 'the kept token is unchanged');
      assert.equal(snapshot.context.coin!.currentBlock, 99);
      const last = h.events.at(-1) as Extract<DomainEvent, { type: 'CoinActivated' }>;
      assert.equal(last.type, 'CoinActivated');
      assert.equal(last.data.attempt, 2);
      // the event records what this activation read; the projection merges kept tokens itself
      assert.deepEqual(last.data.tokens.map((t) => [t.ticker, t.balance?.spendable]), [
        ['DAI-ERC20', '9'],
        ['LINK-ERC20', '0.000000000000000003'],
      ]);
      // all three are disabled together by force
      h.actor.send({ type: 'DISABLE', force: true });
      assert.deepEqual(h.events.at(-1), { type: 'CoinDisabled', data: { ticker: 'ETH', tokens: ['DAI-ERC20', 'LINK-ERC20', 'USDT-ERC20'] } });
    });

    test('when ACTIVATE fails (or is cancelled), then it is passive again with the tokens intact', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      const before = h.actor.getSnapshot().context.coin;

      h.actor.send({ type: 'ACTIVATE', plan: plan(['LINK-ERC20']) });
      h.lastCall().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
      const failed = await waitFor(h.actor, (s) => !s.matches('activating'));
      assert.equal(failed.value, 'passive');
      assert.equal(failed.context.coin, before, 'the coin (and its tokens) is untouched');
      assert.equal(failed.context.lastError?.errorType, ErrorType.Transport);
      assert.equal(h.events.at(-1)?.type, 'ActivationFailed');

      h.actor.send({ type: 'ACTIVATE', plan: plan(['LINK-ERC20']) });
      const call = h.lastCall();
      h.actor.send({ type: 'CANCEL' });
      assert.equal(call.signal.aborted, true);
      assert.equal(h.state(), 'passive');
      assert.equal(h.actor.getSnapshot().context.coin, before);
      assert.deepEqual(h.events.at(-1), { type: 'ActivationCancelled', data: { ticker: 'ETH', attempt: 3 } });
      assert.deepEqual(tickers(h.actor.getSnapshot().context.coin), ['USDT-ERC20', 'DAI-ERC20']);
    });

    test('when DISABLE_TOKEN is sent while it re-activates, then the kept token is removed for good', async () => {
      const h = await activated(['USDT-ERC20', 'DAI-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send({ type: 'ACTIVATE', plan: plan(['LINK-ERC20']) });
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'USDT-ERC20' });
      assert.equal(h.state(), 'activating', 'the activation goes on');
      assert.equal(h.lastCall().signal.aborted, false);
      assert.deepEqual(h.events.at(-1), { type: 'TokenDisabled', data: { ticker: 'USDT-ERC20', platform: 'ETH' } });
      h.lastCall().resolve(coin([token('LINK-ERC20', 18, 1n)]));
      const snapshot = await waitFor(h.actor, (s) => s.matches('active'));
      assert.deepEqual(tickers(snapshot.context.coin), ['LINK-ERC20', 'DAI-ERC20'], 'the disabled token does not come back');

      // the same when the re-activation fails: back to passive without it
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send({ type: 'ACTIVATE', plan: plan([]) });
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'DAI-ERC20' });
      h.lastCall().reject(new Error('down'));
      const failed = await waitFor(h.actor, (s) => !s.matches('activating'));
      assert.equal(failed.value, 'passive');
      assert.deepEqual(tickers(failed.context.coin), ['LINK-ERC20']);
    });
  });
});

describe('coinActivation machine: who may start an activation (spec 3.1, reservations, method forms)', () => {
  const reserve = (holder: string, via: ActivationVia = ActivationVia.EnableEthTask) => ({ type: 'RESERVE', holder, via }) as const;
  const activate = (holder?: string, via: ActivationVia = ActivationVia.EnableEthTask) =>
    ({ type: 'ACTIVATE', plan: plan([], { via }), ...(holder === undefined ? {} : { holder }) }) as const;

  describe('Given an inactive coin', () => {
    test('when a task RESERVEs it, then it stays inactive without an event, and only that task may ACTIVATE or RESERVE it', () => {
      const h = harness();
      h.actor.send(reserve('task-1'));
      assert.equal(h.state(), 'inactive');
      assert.equal(h.actor.getSnapshot().context.reservedBy, 'task-1');
      assert.deepEqual(h.events, [], 'a reservation is not a transition of spec 3.1');
      const can = (event: Parameters<typeof h.actor.send>[0]) => h.actor.getSnapshot().can(event);
      assert.equal(can(activate()), false, 'a request without the reservation');
      assert.equal(can(activate('task-2')), false, 'another task');
      assert.equal(can(reserve('task-2')), false);
      assert.equal(can(activate(undefined, ActivationVia.Enable)), false, 'a legacy request');
      assert.equal(can(activate('task-1')), true, 'the holder');
      h.actor.send(activate());
      assert.equal(h.state(), 'inactive');
      assert.equal(h.calls.length, 0, 'a refused ACTIVATE starts no chain work');
    });

    test('when the holder ACTIVATEs and the attempt fails, then the reservation holds until its holder RELEASEs it', async () => {
      const h = harness();
      h.actor.send(reserve('task-1'));
      h.actor.send(activate('task-1'));
      assert.equal(h.state(), 'activating');
      h.lastCall().reject(new ActivationError(ErrorType.Transport, 'down', 'down'));
      await waitFor(h.actor, (s) => s.matches('inactive'));
      assert.equal(h.actor.getSnapshot().can(activate()), false, 'still held by the task');
      h.actor.send({ type: 'RELEASE', holder: 'task-2' });
      assert.equal(h.actor.getSnapshot().context.reservedBy, 'task-1', 'only the holder releases');
      h.actor.send({ type: 'RELEASE', holder: 'task-1' });
      assert.equal(h.actor.getSnapshot().context.reservedBy, null);
      assert.equal(h.actor.getSnapshot().can(activate()), true);
      assert.deepEqual(types(h.events), ['ActivationRequested', 'ActivationFailed'], 'RESERVE and RELEASE emit nothing');
    });
  });

  describe('Given a coin being activated, then active', () => {
    test('when asked about RESERVE, then it refuses it exactly as it refuses ACTIVATE (the "already activated" row)', async () => {
      const h = harness();
      h.actor.send(activate());
      for (const state of ['activating', 'active']) {
        assert.equal(h.state(), state);
        assert.equal(h.actor.getSnapshot().can(reserve('task-1')), false, state);
        assert.equal(h.actor.getSnapshot().can(activate()), false, state);
        if (state === 'activating') {
          h.lastCall().resolve(coin([]));
          await waitFor(h.actor, (s) => s.matches('active'));
        }
      }
      h.actor.send(reserve('task-1'));
      assert.equal(h.actor.getSnapshot().context.reservedBy, null);
    });
  });

  describe('Given a passive platform', () => {
    test('when a legacy request asks, then it is refused; the v2 forms re-activate it, a reserving task only for itself', async () => {
      const h = await activated(['USDT-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      const can = (event: Parameters<typeof h.actor.send>[0]) => h.actor.getSnapshot().can(event);
      for (const via of [ActivationVia.Enable, ActivationVia.Electrum]) {
        assert.equal(can(activate(undefined, via)), false, via);
        assert.equal(can(reserve('legacy', via)), false, via);
      }
      assert.equal(can(activate(undefined, ActivationVia.EnableEthWithTokens)), true);
      h.actor.send(activate(undefined, ActivationVia.Enable));
      assert.equal(h.state(), 'passive', 'the refused legacy ACTIVATE changed nothing');

      h.actor.send(reserve('task-1'));
      assert.equal(can(activate(undefined, ActivationVia.EnableEthWithTokens)), false, 'held by the task');
      h.actor.send(activate('task-1'));
      assert.equal(h.state(), 'activating');
    });
  });

  describe('Given an activation that succeeds', () => {
    test('when CoinActivated is emitted, then its data is the summary kept in context, with the real attempt; disabling clears it', async () => {
      const h = harness();
      h.actor.send(activate());
      h.lastCall().reject(new Error('down'));
      await waitFor(h.actor, (s) => s.matches('inactive'));
      h.actor.send(activate());
      h.lastCall().resolve(coin([token('USDT-ERC20', 6, 5n)]));
      const snapshot = await waitFor(h.actor, (s) => s.matches('active'));
      const activatedEvent = h.events.at(-1) as Extract<DomainEvent, { type: 'CoinActivated' }>;
      assert.equal(activatedEvent.type, 'CoinActivated');
      assert.equal(snapshot.context.summary, activatedEvent.data, 'one summary: the same object');
      assert.equal(activatedEvent.data.attempt, 2);
      h.actor.send({ type: 'DISABLE', force: true });
      assert.equal(h.actor.getSnapshot().context.summary, null);
    });
  });

  describe('Given tokens: what a coin holds besides itself (one coin, one activation)', () => {
    const held = (h: ReturnType<typeof harness>) => heldTokens(h.actor.getSnapshot());

    test('when a task RESERVEs it with tokens, then it holds them until RELEASE, and nothing else', () => {
      const h = harness();
      assert.deepEqual(held(h), []);
      h.actor.send({ type: 'RESERVE', holder: 'task-1', via: ActivationVia.EnableEthTask, tokens: ['USDT-ERC20'] });
      assert.deepEqual(held(h), ['USDT-ERC20']);
      h.actor.send({ type: 'RESERVE', holder: 'task-2', via: ActivationVia.EnableEthTask, tokens: ['DAI-ERC20'] });
      assert.deepEqual(held(h), ['USDT-ERC20'], 'a refused RESERVE takes nothing');
      h.actor.send({ type: 'RELEASE', holder: 'task-1' });
      assert.deepEqual(held(h), []);
      assert.deepEqual(h.events, []);
    });

    test('when it activates, then it holds the requested tokens while in flight, the enabled ones after, and none once it failed', async () => {
      const h = harness();
      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20', 'DAI-ERC20']) });
      assert.deepEqual(held(h), ['USDT-ERC20', 'DAI-ERC20']);
      h.lastCall().reject(new Error('down'));
      await waitFor(h.actor, (s) => s.matches('inactive'));
      assert.deepEqual(held(h), []);

      h.actor.send({ type: 'ACTIVATE', plan: plan(['USDT-ERC20', 'DAI-ERC20']) });
      h.lastCall().resolve(coin([token('USDT-ERC20', 6, 1n), token('DAI-ERC20', 18, 1n)]));
      await waitFor(h.actor, (s) => s.matches('active'));
      h.actor.send({ type: 'DISABLE_TOKEN', ticker: 'DAI-ERC20' });
      assert.deepEqual(held(h), ['USDT-ERC20'], 'a disabled token is let go (the old plan does not count)');
      h.actor.send({ type: 'DISABLE', force: false });
      assert.deepEqual(held(h), ['USDT-ERC20'], 'a passive platform keeps its tokens');
      h.actor.send({ type: 'DISABLE', force: true });
      assert.deepEqual(held(h), []);
    });

    test('when asked whether it may join another platform as a token (asTokenOf), then only if inactive and free: a passive platform is re-activated only as itself', async () => {
      const asToken = (holder = '') => ({ type: 'RESERVE', holder, via: ActivationVia.EnableEthWithTokens, asTokenOf: 'TRX' }) as const;
      const asPlatform = { type: 'RESERVE', holder: '', via: ActivationVia.EnableEthWithTokens } as const;
      const free = harness();
      assert.equal(free.actor.getSnapshot().can(asToken()), true);
      free.actor.send({ type: 'RESERVE', holder: 'task-1', via: ActivationVia.EnableEthTask });
      assert.equal(free.actor.getSnapshot().can(asToken()), false, 'held by a task');
      assert.equal(free.actor.getSnapshot().can(asToken('task-1')), true, 'by this task');

      const h = await activated(['USDT-ERC20']);
      assert.equal(h.actor.getSnapshot().can(asToken()), false, 'active');
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      assert.equal(h.actor.getSnapshot().can(asPlatform), true, 'passive: re-activated as a platform');
      assert.equal(h.actor.getSnapshot().can(asToken()), false, 'but never as a token');
    });
  });
});

describe('coinActivation machine: settings (issue 13)', () => {
  const ethSettings = coinSettings({ requiredConfirmations: 4 });
  const usdtSettings = coinSettings({ requiredConfirmations: 9, walletOnly: true });
  const settingsPlan = (tokens: string[]) => plan(tokens, { settings: { coin: ethSettings, tokens: { 'USDT-ERC20': usdtSettings } } });
  const change = (ticker: string, value: number) => ({ type: 'CHANGE_SETTING', ticker, change: { setting: 'requiredConfirmations', value } }) as const;

  async function activatedWithSettings() {
    const h = harness();
    h.actor.send({ type: 'ACTIVATE', plan: settingsPlan(['USDT-ERC20']) });
    h.lastCall().resolve(coin([token('USDT-ERC20', 6, 1n)]));
    await waitFor(h.actor, (s) => s.matches('active'));
    return h;
  }

  describe('Given a plan with settings', () => {
    test('when the activation succeeds, then the coin and its token hold them and CoinActivated records them', async () => {
      const h = await activatedWithSettings();
      const c = h.actor.getSnapshot().context.coin;
      assert.deepEqual(c?.settings, ethSettings);
      assert.deepEqual(c?.tokens[0]?.settings, usdtSettings);
      const done = h.events.find((e) => e.type === 'CoinActivated');
      assert.ok(done?.type === 'CoinActivated');
      assert.deepEqual(done.data.settings, ethSettings);
      assert.deepEqual(done.data.tokens[0]?.settings, usdtSettings);
    });
  });

  describe('Given an active platform with a token', () => {
    test('when CHANGE_SETTING names the platform or the token, then that coin alone changes, with one event each', async () => {
      const h = await activatedWithSettings();
      h.events.length = 0;
      h.actor.send(change('ETH', 12));
      h.actor.send({ type: 'CHANGE_SETTING', ticker: 'USDT-ERC20', change: { setting: 'requiresNotarization', value: true } });
      const c = h.actor.getSnapshot().context.coin;
      assert.equal(c?.settings?.requiredConfirmations, 12);
      assert.equal(c?.tokens[0]?.settings?.requiredConfirmations, 9, 'the token keeps its own');
      assert.equal(c?.tokens[0]?.settings?.requiresNotarization, true);
      assert.equal(c?.settings?.requiresNotarization, false);
      assert.deepEqual(h.events, [
        { type: 'RequiredConfirmationsSet', data: { ticker: 'ETH', platform: 'ETH', confirmations: 12 } },
        { type: 'RequiresNotarizationSet', data: { ticker: 'USDT-ERC20', platform: 'ETH', requiresNotarization: true } },
      ]);
    });

    test('when CHANGE_SETTING names a coin it does not hold, then it is refused and nothing is emitted', async () => {
      const h = await activatedWithSettings();
      h.events.length = 0;
      assert.equal(h.actor.getSnapshot().can(change('DAI-ERC20', 1)), false);
      h.actor.send(change('DAI-ERC20', 1));
      assert.deepEqual(h.events, []);
    });
  });

  describe('Given a passive platform with a token', () => {
    test('when CHANGE_SETTING names the platform, then it is refused (not available); the token, then it changes', async () => {
      const h = await activatedWithSettings();
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.state(), 'passive');
      h.events.length = 0;
      assert.equal(h.actor.getSnapshot().can(change('ETH', 1)), false);
      h.actor.send(change('USDT-ERC20', 2));
      assert.deepEqual(types(h.events), ['RequiredConfirmationsSet']);
      assert.equal(h.actor.getSnapshot().context.coin?.tokens[0]?.settings?.requiredConfirmations, 2);
    });

    test('when it is re-activated without the token, then the kept token keeps its changed settings', async () => {
      const h = await activatedWithSettings();
      h.actor.send({ type: 'DISABLE', force: false });
      h.actor.send(change('USDT-ERC20', 2));
      h.actor.send({ type: 'ACTIVATE', plan: settingsPlan([]) });
      h.lastCall().resolve(coin([]));
      await waitFor(h.actor, (s) => s.matches('active'));
      const c = h.actor.getSnapshot().context.coin;
      assert.deepEqual(tickers(c), ['USDT-ERC20']);
      assert.equal(c?.tokens[0]?.settings?.requiredConfirmations, 2);
    });
  });

  describe('Given an inactive or activating coin', () => {
    test('when CHANGE_SETTING names it, then it is refused', async () => {
      const h = harness();
      assert.equal(h.actor.getSnapshot().can(change('ETH', 1)), false, 'inactive');
      h.actor.send({ type: 'ACTIVATE', plan: settingsPlan([]) });
      assert.equal(h.actor.getSnapshot().can(change('ETH', 1)), false, 'activating');
    });
  });
});
