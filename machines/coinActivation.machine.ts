import { and, assign, emit, enqueueActions, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { DomainEvent } from '../spec/events.ts';
import { ActivationError, ErrorType, toActivationError } from '../spec/errors.ts';
import {
  isLegacyVia,
  isStandaloneVia,
  summarizeActivation,
  summarizeToken,
  withPlannedSettings,
  withSettingChanged,
  type ActivatedCoin,
  type ActivatedToken,
  type ActivationPlan,
  type ActivationVia,
  type TokenPlan,
} from './activation.types.ts';
import { isUsedAddress, listedOn, summarizeHdAddress, withHdAddresses } from './hdAccount.ts';
import type { CoinActivationContext, CoinActivationEvent, CoinActivationInput, CoinActivationOutput } from './coinActivation.types.ts';

export type { CoinActivationContext, CoinActivationEvent, CoinActivationInput, CoinActivationOutput };

/**
 * One coin's activation lifecycle (spec 3.1): `inactive` → `activating` → `active`, with `passive`
 * for a platform disabled while its tokens stay enabled (docs/compatibility.md §10). Chain work happens in
 * the invoked `activateCoin` actor, provided by `actors/`; leaving `activating` (cancel, stop)
 * aborts its `AbortSignal`. Every transition emits one past-tense domain event.
 *
 * The machine is the one place that says whether the coin may start an activation: `ACTIVATE` is
 * accepted only where the table allows it, and a coin held by a running task (`RESERVE`, kept in
 * context, not a state of its own: spec 3.1 has none) accepts it only from that task. The registry
 * asks with `snapshot.can(...)`; a refusal is spec 3.1's "already activated" row. What one coin's
 * machine cannot see, another platform holding this ticker as a token, the registry reads from
 * every machine's {@link heldTokens}.
 */

const activeTokens = (coin: ActivatedCoin | null): string[] => coin?.tokens.map((t) => t.ticker) ?? [];

/** The id of the child actor that reads token `ticker` for `ADD_TOKEN`. */
export const tokenChildId = (ticker: string): string => `token:${ticker}`;
const TOKEN_CHILD = 'token:';
/** The token plan a child's outcome event belongs to, if it is one of this machine's token children. */
const addingOf = (context: CoinActivationContext, event: CoinActivationEvent): TokenPlan | undefined =>
  'actorId' in event && event.actorId.startsWith(TOKEN_CHILD)
    ? context.addingTokens.find((t) => tokenChildId(t.ticker) === event.actorId)
    : undefined;

/** What the token's request is answered when its platform stops being active while it is read. */
const platformLeft = (token: TokenPlan): ActivationError =>
  new ActivationError(
    ErrorType.PlatformCoinIsNotActivated,
    `Platform coin ${token.platform} is not activated: it was disabled while ${token.ticker} was being activated`,
    token.platform,
  );

/** The form of a request to start an activation (ACTIVATE, or RESERVE ahead of it). */
const viaOf = (event: CoinActivationEvent): ActivationVia | undefined =>
  event.type === 'ACTIVATE' ? event.plan.via : event.type === 'RESERVE' ? event.via : undefined;

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
    /** Reads one token for the active platform `platform` (`enable_erc20`). */
    activateToken: fromPromise<ActivatedToken, { readonly platform: ActivatedCoin; readonly token: TokenPlan }>(async () => {
      throw new Error('activateToken is provided by the actor registry');
    }),
  },
  guards: {
    /** Not reserved, or reserved by this request's holder. */
    isFreeForRequest: ({ context, event }) =>
      (event.type === 'ACTIVATE' || event.type === 'RESERVE') && (context.reservedBy === null || context.reservedBy === event.holder),
    /** Only the v2 platform-with-tokens forms re-activate a passive platform (docs/compatibility.md §10), never as a token. */
    reactivatesPlatform: ({ event }) => {
      const via = viaOf(event);
      return via !== undefined && !isLegacyVia(via) && !isStandaloneVia(via) && !(event.type === 'RESERVE' && event.asTokenOf !== undefined);
    },
    holdsReservation: ({ context, event }) => event.type === 'RELEASE' && context.reservedBy === event.holder,
    keepsTokensAlive: ({ context, event }) =>
      event.type === 'DISABLE' && !event.force && activeTokens(context.coin).length > 0,
    wasPassive: ({ context }) => context.coin !== null,
    isLastToken: ({ context, event }) =>
      event.type === 'DISABLE_TOKEN' && activeTokens(context.coin).join() === event.ticker,
    isTokenActive: ({ context, event }) =>
      event.type === 'DISABLE_TOKEN' && activeTokens(context.coin).includes(event.ticker),
    /** The setting's coin is this one (asked only where it is available: active). */
    changesOwnSetting: ({ context, event }) => event.type === 'CHANGE_SETTING' && event.ticker === context.ticker && context.coin !== null,
    changesTokenSetting: ({ context, event }) => event.type === 'CHANGE_SETTING' && activeTokens(context.coin).includes(event.ticker),
    /**
     * New HD addresses of this coin's account that start where its listing of their chain ends:
     * two requests that read the same listing cannot both add its next address.
     */
    continuesListing: ({ context, event }) => {
      const coin = context.coin;
      if (event.type !== 'ADD_HD_ADDRESSES' || coin?.hd === undefined || coin.hd.accountId !== event.accountIndex) return false;
      if ('created' in event) return event.created.addressIndex === listedOn(coin, event.created.chain);
      return event.scanned.every(({ chain, found }) => found.length === 0 || found[0]!.addressIndex === listedOn(coin, chain));
    },
    /** A token of this platform's family that is neither enabled here nor being added (the registry checked the rest). */
    canAddToken: ({ context, event }) =>
      event.type === 'ADD_TOKEN' &&
      context.coin !== null &&
      event.token.platform === context.ticker &&
      !activeTokens(context.coin).includes(event.token.ticker) &&
      !context.addingTokens.some((t) => t.ticker === event.token.ticker),
  },
  actions: {
    acceptPlan: assign({
      plan: ({ event }) => (event.type === 'ACTIVATE' ? event.plan : null),
      attempt: ({ context }) => context.attempt + 1,
      lastError: null,
      summary: null,
    }),
    reserve: assign(({ event }) => (event.type === 'RESERVE' ? { reservedBy: event.holder, reservedTokens: event.tokens ?? [] } : {})),
    release: assign({ reservedBy: null, reservedTokens: [] }),
    emitRequested: emit(({ context }) => ({
      type: 'ActivationRequested' as const,
      data: {
        ticker: context.ticker,
        family: context.plan!.family,
        via: context.plan!.via,
        tokens: [...context.plan!.tokens],
        getBalances: context.plan!.getBalances,
        attempt: context.attempt,
        ...(context.plan!.swapContracts === undefined ? {} : { swapContracts: { ...context.plan!.swapContracts } }),
      },
    })),
    emitDisabled: emit(({ context }) => ({
      type: 'CoinDisabled' as const,
      data: { ticker: context.ticker, tokens: activeTokens(context.coin) },
    })),
    clearCoin: assign({ coin: null, plan: null, summary: null }),
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
    changeSetting: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'CHANGE_SETTING' || context.coin === null) return;
      enqueue.assign({ coin: withSettingChanged(context.coin, event.ticker, event.change) });
      const { ticker } = event;
      const platform = context.ticker;
      enqueue.emit(
        event.change.setting === 'requiredConfirmations'
          ? { type: 'RequiredConfirmationsSet' as const, data: { ticker, platform, confirmations: event.change.value } }
          : { type: 'RequiresNotarizationSet' as const, data: { ticker, platform, requiresNotarization: event.change.value } },
      );
    }),
    startToken: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ADD_TOKEN' || context.coin === null) return;
      const { token } = event;
      enqueue.assign({ addingTokens: [...context.addingTokens, token] });
      enqueue.emit({
        type: 'TokenActivationRequested' as const,
        data: { ticker: token.ticker, platform: context.ticker, family: context.coin.family, via: token.via },
      });
      enqueue.spawnChild('activateToken', { id: tokenChildId(token.ticker), input: { platform: context.coin, token } });
    }),
    tokenActivated: enqueueActions(({ context, event, enqueue }) => {
      const token = addingOf(context, event);
      if (token === undefined || !('output' in event) || context.coin === null) return;
      const read: ActivatedToken = { ...event.output, ...(token.settings === undefined ? {} : { settings: token.settings }) };
      enqueue.assign({
        coin: { ...context.coin, tokens: [...context.coin.tokens, read] },
        addingTokens: context.addingTokens.filter((t) => t !== token),
      });
      enqueue.emit({ type: 'TokenActivated' as const, data: { ...summarizeToken(read), platform: context.ticker } });
    }),
    tokenFailed: enqueueActions(({ context, event, enqueue }) => {
      const token = addingOf(context, event);
      if (token === undefined || !('error' in event)) return;
      enqueue.assign({ addingTokens: context.addingTokens.filter((t) => t !== token) });
      const error = toActivationError(event.error).toJSON();
      enqueue.emit({ type: 'TokenActivationFailed' as const, data: { ticker: token.ticker, platform: context.ticker, error } });
    }),
    /** Leaving `active`: the tokens still being read are stopped and fail (nothing of them was enabled). */
    abandonTokens: enqueueActions(({ context, enqueue }) => {
      if (context.addingTokens.length === 0) return;
      for (const token of context.addingTokens) {
        enqueue.stopChild(tokenChildId(token.ticker));
        const error = platformLeft(token).toJSON();
        enqueue.emit({ type: 'TokenActivationFailed' as const, data: { ticker: token.ticker, platform: context.ticker, error } });
      }
      enqueue.assign({ addingTokens: [] });
    }),
    addHdAddresses: enqueueActions(({ context, event, enqueue }) => {
      const coin = context.coin;
      if (event.type !== 'ADD_HD_ADDRESSES' || coin?.hd === undefined) return;
      const { walletId } = coin.hd;
      const header = { ticker: context.ticker, walletId, accountIndex: event.accountIndex };
      if ('created' in event) {
        enqueue.assign({ coin: withHdAddresses(coin, [event.created]) });
        enqueue.emit({ type: 'AddressCreated' as const, data: { ...header, ...summarizeHdAddress(coin, event.created) } });
        return;
      }
      enqueue.assign({ coin: withHdAddresses(coin, event.scanned.flatMap((s) => s.found)) });
      for (const { chain, knownAddresses, found } of event.scanned) {
        const addresses = found.map((a) => summarizeHdAddress(coin, a, !isUsedAddress(a)));
        enqueue.emit({ type: 'AddressesScanned' as const, data: { ...header, chain, knownAddresses, addresses } });
      }
    }),
    emitTokenDisabled: emit(({ context, event }) => ({
      type: 'TokenDisabled' as const,
      data: { ticker: event.type === 'DISABLE_TOKEN' ? event.ticker : '', platform: context.ticker },
    })),
  },
}).createMachine({
  id: 'coinActivation',
  context: ({ input }) => ({
    ticker: input.ticker,
    attempt: 0,
    plan: null,
    coin: null,
    lastError: null,
    summary: null,
    reservedBy: null,
    reservedTokens: [],
    addingTokens: [],
  }),
  initial: 'inactive',
  on: {
    // A reservation ends when its holder lets go, whatever the coin's state.
    RELEASE: { guard: 'holdsReservation', actions: 'release' },
    // A token child's outcome. Children run only while `active` (its exit stops them), and the
    // coin's own activation handles its outcome in `activating`, so only token children reach here;
    // an error must always be taken (an unhandled child error would stop the machine).
    'xstate.done.actor.*': { actions: 'tokenActivated' },
    'xstate.error.actor.*': { actions: 'tokenFailed' },
  },
  states: {
    inactive: {
      on: {
        ACTIVATE: { guard: 'isFreeForRequest', target: 'activating', actions: ['acceptPlan', 'emitRequested'] },
        RESERVE: { guard: 'isFreeForRequest', actions: 'reserve' },
      },
    },
    activating: {
      // No ACTIVATE, no RESERVE while activating either: the request is "already activated".
      invoke: {
        src: 'activateCoin',
        input: ({ context }) => context.plan!,
        onDone: {
          target: 'active',
          actions: enqueueActions(({ context, event, enqueue }) => {
            // The settings the plan decided go with the coin (kept tokens keep theirs).
            const output = withPlannedSettings(event.output, context.plan?.settings);
            // Summarized once, here: the event records it and the registry hands it to the caller.
            const summary = summarizeActivation(output, context.attempt);
            // Tokens kept alive through a passive period stay enabled next to the new ones.
            const fresh = new Set(output.tokens.map((t) => t.ticker));
            const kept = context.coin?.tokens.filter((t) => !fresh.has(t.ticker)) ?? [];
            enqueue.assign({ coin: { ...output, tokens: [...output.tokens, ...kept] }, summary });
            enqueue.emit({ type: 'CoinActivated', data: summary });
          }),
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
        CHANGE_SETTING: { guard: 'changesTokenSetting', actions: 'changeSetting' },
      },
    },
    active: {
      // No ACTIVATE, no RESERVE: spec 3.1's "already activated" row (the registry answers it).
      exit: 'abandonTokens',
      on: {
        ADD_TOKEN: { guard: 'canAddToken', actions: 'startToken' },
        ADD_HD_ADDRESSES: { guard: 'continuesListing', actions: 'addHdAddresses' },
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
        CHANGE_SETTING: [
          { guard: 'changesOwnSetting', actions: 'changeSetting' },
          { guard: 'changesTokenSetting', actions: 'changeSetting' },
        ],
      },
    },
    passive: {
      on: {
        ACTIVATE: { guard: and(['isFreeForRequest', 'reactivatesPlatform']), target: 'activating', actions: ['acceptPlan', 'emitRequested'] },
        RESERVE: { guard: and(['isFreeForRequest', 'reactivatesPlatform']), actions: 'reserve' },
        DISABLE: { guard: ({ event }) => event.force, target: 'inactive', actions: ['emitDisabled', 'clearCoin'] },
        DISABLE_TOKEN: [
          // A passive platform exists only for its tokens: with the last one gone, it goes too.
          { guard: 'isLastToken', target: 'inactive', actions: ['emitTokenDisabled', 'removeToken', 'emitDisabled', 'clearCoin'] },
          { guard: 'isTokenActive', actions: ['emitTokenDisabled', 'removeToken'] },
        ],
        // A passive platform is not available (the reference's lp_coinfind skips it); its tokens are.
        CHANGE_SETTING: { guard: 'changesTokenSetting', actions: 'changeSetting' },
      },
    },
  },
});

/**
 * The tokens this coin holds, so no other request may activate them: those enabled with it (active,
 * passive, or kept while it re-activates), those its activation in flight requested, and those
 * reserved with it by a task.
 */
export function heldTokens(snapshot: SnapshotFrom<typeof coinActivationMachine>): string[] {
  const { coin, plan, reservedTokens, addingTokens } = snapshot.context;
  const requested = snapshot.matches('activating') ? (plan?.tokens ?? []) : [];
  return [...activeTokens(coin), ...requested, ...reservedTokens, ...addingTokens.map((t) => t.ticker)];
}
