/** `ADD_TOKEN` of the coinActivation machine (`enable_erc20`, docs/compatibility.md §18). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor, fromPromise, waitFor } from 'xstate';
import { fakeCoin, fakePlan, fakeToken } from '../devnet/testing/fixtures.ts';
import { coinActivationMachine, heldTokens } from './coinActivation.machine.ts';
import { ActivationVia, type ActivatedCoin, type ActivatedToken, type ActivationPlan, type TokenPlan } from './activation.types.ts';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { DomainEvent } from '../spec/events.ts';

interface TokenCall {
  readonly token: TokenPlan;
  readonly platform: ActivatedCoin;
  readonly signal: AbortSignal;
  resolve(token: ActivatedToken): void;
  reject(error: unknown): void;
}

/** An active ETH with `tokens`, whose token reads the test settles by hand. */
async function activeEth(tokens: string[] = []) {
  const reads: TokenCall[] = [];
  const machine = coinActivationMachine.provide({
    actors: {
      activateCoin: fromPromise<ActivatedCoin, ActivationPlan>(async () => fakeCoin('ETH', tokens.map((t) => fakeToken(t, 6, 1n)))),
      activateToken: fromPromise<ActivatedToken, { platform: ActivatedCoin; token: TokenPlan }>(
        ({ input, signal }) => new Promise((resolve, reject) => reads.push({ ...input, signal, resolve, reject })),
      ),
    },
  });
  const actor = createActor(machine, { input: { ticker: 'ETH' } });
  const events: DomainEvent[] = [];
  actor.on('*', (event) => events.push(event as DomainEvent));
  actor.start();
  actor.send({ type: 'ACTIVATE', plan: fakePlan('ETH', tokens) });
  await waitFor(actor, (s) => s.matches('active'));
  events.length = 0;
  return { actor, reads, events };
}

const tokenPlan = (ticker: string): TokenPlan => ({ ticker, platform: 'ETH', via: ActivationVia.EnableErc20, contractAddress: `0x${ticker.length.toString(16).padStart(40, '0')}`, decimals: 6 });
const tickers = (coin: ActivatedCoin | null) => coin?.tokens.map((t) => t.ticker);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coinActivation machine: ADD_TOKEN', () => {
  describe('Given an active platform', () => {
    test('when a token is added and read, then it is held meanwhile, then enabled with TokenActivationRequested and TokenActivated', async () => {
      const h = await activeEth(['DAI-ERC20']);
      h.actor.send({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') });
      assert.deepEqual(heldTokens(h.actor.getSnapshot()), ['DAI-ERC20', 'USDT-ERC20']);
      assert.equal(h.reads.length, 1);
      assert.equal(h.reads[0]!.platform.ticker, 'ETH');
      h.reads[0]!.resolve(fakeToken('USDT-ERC20', 6, 1_234_567_891n));
      await settle();
      assert.equal(h.actor.getSnapshot().value, 'active');
      assert.deepEqual(tickers(h.actor.getSnapshot().context.coin), ['DAI-ERC20', 'USDT-ERC20']);
      assert.deepEqual(h.actor.getSnapshot().context.addingTokens, []);
      assert.deepEqual(h.events, [
        { type: 'TokenActivationRequested', data: { ticker: 'USDT-ERC20', platform: 'ETH', family: 'evm', via: 'enable_erc20' } },
        {
          type: 'TokenActivated',
          data: { ticker: 'USDT-ERC20', platform: 'ETH', contractAddress: fakeToken('USDT-ERC20').contractAddress, decimals: 6, balance: { spendable: '1234.567891', unspendable: '0' } },
        },
      ]);
    });

    test('when the read fails, then the token is let go with TokenActivationFailed and the platform stays active', async () => {
      const h = await activeEth();
      h.actor.send({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') });
      h.reads[0]!.reject(new ActivationError(ErrorType.Transport, 'all nodes down', 'all nodes down'));
      await settle();
      assert.equal(h.actor.getSnapshot().value, 'active');
      assert.deepEqual(heldTokens(h.actor.getSnapshot()), []);
      assert.deepEqual(h.events.at(-1), {
        type: 'TokenActivationFailed',
        data: { ticker: 'USDT-ERC20', platform: 'ETH', error: { errorType: 'Transport', message: 'all nodes down', data: 'all nodes down' } },
      });
    });

    test('when the same token is added twice or an enabled one again, then ADD_TOKEN is refused', async () => {
      const h = await activeEth(['DAI-ERC20']);
      h.actor.send({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') });
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') }), false);
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: tokenPlan('DAI-ERC20') }), false);
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: { ...tokenPlan('LINK-ERC20'), platform: 'BNB' } }), false);
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: tokenPlan('LINK-ERC20') }), true);
    });

    test('when it is disabled while a token is read, then the read is aborted and fails with PlatformCoinIsNotActivated', async () => {
      const h = await activeEth(['DAI-ERC20']);
      h.actor.send({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') });
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.actor.getSnapshot().value, 'passive');
      assert.equal(h.reads[0]!.signal.aborted, true);
      assert.deepEqual(heldTokens(h.actor.getSnapshot()), ['DAI-ERC20']);
      const failed = h.events.find((e) => e.type === 'TokenActivationFailed');
      assert.equal(failed?.type === 'TokenActivationFailed' && failed.data.error.errorType, 'PlatformCoinIsNotActivated');
      // A late outcome of the stopped read changes nothing.
      h.reads[0]!.resolve(fakeToken('USDT-ERC20'));
      await settle();
      assert.deepEqual(tickers(h.actor.getSnapshot().context.coin), ['DAI-ERC20']);
      assert.equal(h.actor.getSnapshot().status, 'active');
    });
  });

  describe('Given a platform that is not active', () => {
    test('when a token is added, then ADD_TOKEN is refused (inactive, activating, passive)', async () => {
      const h = await activeEth(['DAI-ERC20']);
      h.actor.send({ type: 'DISABLE', force: false });
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') }), false);
      h.actor.send({ type: 'DISABLE', force: true });
      assert.equal(h.actor.getSnapshot().can({ type: 'ADD_TOKEN', token: tokenPlan('USDT-ERC20') }), false);
    });
  });
});
