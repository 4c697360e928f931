import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import type { DomainEvent } from '../spec/events.ts';
import { toActivationError, type ActivationError } from '../spec/errors.ts';
import { coinActivatedEvent, type ActivatedCoin, type ActivationPlan } from './activation.types.ts';

/**
 * One coin's activation lifecycle (spec 3.1): `inactive` → `activating` → `active`, with `passive`
 * for a platform disabled while its tokens stay enabled (behaviour notes §10). Chain work happens in
 * the invoked `activateCoin` actor, provided by `actors/`; leaving `activating` (cancel, stop)
 * aborts its `AbortSignal`. Every transition emits one past-tense domain event.
 */

export interface CoinActivationInput {
  readonly ticker: string;
}

export interface CoinActivationContext {
  readonly ticker: string;
  /** Increments with every accepted ACTIVATE; correlates results with requests. */
  readonly attempt: number;
  readonly plan: ActivationPlan | null;
  readonly coin: ActivatedCoin | null;
  readonly lastError: ActivationError | null;
}

/** Commands the machine accepts. */
export type CoinActivationEvent =
  | { readonly type: 'ACTIVATE'; readonly plan: ActivationPlan }
  | { readonly type: 'CANCEL' }
  | { readonly type: 'DISABLE'; readonly force: boolean }
  | { readonly type: 'DISABLE_TOKEN'; readonly ticker: string };

/** The machine's output is its final coin, if any (it has no final state today). */
export type CoinActivationOutput = ActivatedCoin | null;

const activeTokens = (coin: ActivatedCoin | null): string[] => coin?.tokens.map((t) => t.ticker) ?? [];

export const coinActivationMachine = setup({
  types: {
    input: {} as CoinActivationInput,
    context: {} as CoinActivationContext,
    events: {} as CoinActivationEvent,
    emitted: {} as DomainEvent,
    output: {} as CoinActivationOutput,
  },
  actors: {
    activateCoin: fromPromise<ActivatedCoin, ActivationPlan>(async () => {
      throw new Error('activateCoin is provided by the actor registry');
    }),
  },
  guards: {
    keepsTokensAlive: ({ context, event }) =>
      event.type === 'DISABLE' && !event.force && activeTokens(context.coin).length > 0,
    wasPassive: ({ context }) => context.coin !== null,
    isLastToken: ({ context, event }) =>
      event.type === 'DISABLE_TOKEN' && activeTokens(context.coin).join() === event.ticker,
    isTokenActive: ({ context, event }) =>
      event.type === 'DISABLE_TOKEN' && activeTokens(context.coin).includes(event.ticker),
  },
  actions: {
    acceptPlan: assign({
      plan: ({ event }) => (event.type === 'ACTIVATE' ? event.plan : null),
      attempt: ({ context }) => context.attempt + 1,
      lastError: null,
    }),
    emitRequested: emit(({ context }) => ({
      type: 'ActivationRequested' as const,
      data: {
        ticker: context.ticker,
        family: context.plan!.family,
        via: context.plan!.via,
        tokens: [...context.plan!.tokens],
        getBalances: context.plan!.getBalances,
        attempt: context.attempt,
      },
    })),
    emitDisabled: emit(({ context }) => ({
      type: 'CoinDisabled' as const,
      data: { ticker: context.ticker, tokens: activeTokens(context.coin) },
    })),
    clearCoin: assign({ coin: null, plan: null }),
    recordFailure: enqueueActions(({ context, event, enqueue }) => {
      const error = toActivationError((event as { error?: unknown }).error);
      enqueue.assign({ lastError: error });
      enqueue.emit({
        type: 'ActivationFailed' as const,
        data: { ticker: context.ticker, error: error.toJSON(), attempt: context.attempt },
      });
    }),
    emitCancelled: emit(({ context }) => ({
      type: 'ActivationCancelled' as const,
      data: { ticker: context.ticker, attempt: context.attempt },
    })),
    removeToken: assign({
      coin: ({ context, event }) =>
        event.type === 'DISABLE_TOKEN' && context.coin !== null
          ? { ...context.coin, tokens: context.coin.tokens.filter((t) => t.ticker !== event.ticker) }
          : context.coin,
    }),
    emitTokenDisabled: emit(({ context, event }) => ({
      type: 'TokenDisabled' as const,
      data: { ticker: event.type === 'DISABLE_TOKEN' ? event.ticker : '', platform: context.ticker },
    })),
  },
}).createMachine({
  id: 'coinActivation',
  context: ({ input }) => ({ ticker: input.ticker, attempt: 0, plan: null, coin: null, lastError: null }),
  initial: 'inactive',
  states: {
    inactive: {
      on: { ACTIVATE: { target: 'activating', actions: ['acceptPlan', 'emitRequested'] } },
    },
    activating: {
      invoke: {
        src: 'activateCoin',
        input: ({ context }) => context.plan!,
        onDone: {
          target: 'active',
          actions: [
            // Tokens kept alive through a passive period stay enabled next to the new ones.
            assign({
              coin: ({ context, event }) => {
                const fresh = new Set(event.output.tokens.map((t) => t.ticker));
                const kept = context.coin?.tokens.filter((t) => !fresh.has(t.ticker)) ?? [];
                return { ...event.output, tokens: [...event.output.tokens, ...kept] };
              },
            }),
            emit(({ context, event }) => coinActivatedEvent(event.output, context.attempt)),
          ],
        },
        onError: [
          // A failed re-activation of a passive platform leaves it passive: its tokens stay enabled.
          { guard: 'wasPassive', target: 'passive', actions: 'recordFailure' },
          { target: 'inactive', actions: ['recordFailure', 'clearCoin'] },
        ],
      },
      on: {
        CANCEL: [
          { guard: 'wasPassive', target: 'passive', actions: 'emitCancelled' },
          { target: 'inactive', actions: ['emitCancelled', 'clearCoin'] },
        ],
        // Re-activating a passive platform: its kept tokens stay enabled meanwhile, so they can be
        // disabled too (and are then not carried over when the activation finishes).
        DISABLE_TOKEN: { guard: 'isTokenActive', actions: ['emitTokenDisabled', 'removeToken'] },
      },
    },
    active: {
      on: {
        DISABLE: [
          {
            guard: 'keepsTokensAlive',
            target: 'passive',
            actions: emit(({ context }) => ({
              type: 'CoinPassivated' as const,
              data: { ticker: context.ticker, activeTokens: activeTokens(context.coin) },
            })),
          },
          { target: 'inactive', actions: ['emitDisabled', 'clearCoin'] },
        ],
        DISABLE_TOKEN: { guard: 'isTokenActive', actions: ['emitTokenDisabled', 'removeToken'] },
      },
    },
    passive: {
      on: {
        ACTIVATE: { target: 'activating', actions: ['acceptPlan', 'emitRequested'] },
        DISABLE: { guard: ({ event }) => event.force, target: 'inactive', actions: ['emitDisabled', 'clearCoin'] },
        DISABLE_TOKEN: [
          // A passive platform exists only for its tokens: with the last one gone, it goes too.
          { guard: 'isLastToken', target: 'inactive', actions: ['emitTokenDisabled', 'removeToken', 'emitDisabled', 'clearCoin'] },
          { guard: 'isTokenActive', actions: ['emitTokenDisabled', 'removeToken'] },
        ],
      },
    },
  },
});
