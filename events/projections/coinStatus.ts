import type { BalanceInfo, ErrorInfo, StoredEvent } from '../../spec/events.ts';
import type { CoinSettings } from '../../spec/coinSettings.ts';
import { nextGasPrice, type GasPriceState } from './gasPrices.ts';

/** A platform coin's lifecycle state, as the coin's actor has it (spec 3.1). */
export type CoinState = 'inactive' | 'activating' | 'active' | 'passive';

/** A token enabled on a platform (its balance, if known, is in `balances`). */
export interface CoinToken {
  readonly ticker: string;
  readonly contractAddress: string;
  readonly decimals: number;
  /** When the token was enabled (the `time` of the `CoinActivated` that brought it). */
  readonly activatedAt?: string;
}

/**
 * Current status of one platform coin of one node: the value of KV key `<node_id>.coin.<TICKER>`.
 * `address`, `currentBlock`, `tokens` and `balances` are present while the coin is enabled (active,
 * passive, or re-activating from passive); `balances` maps the platform and token tickers to
 * decimal-string amounts and is absent when the activation read none (`get_balances: false`); a
 * `BalanceChanged` of the coin's address replaces one (issue 24: the watched balance, not the one at activation).
 */
export interface CoinStatus {
  readonly nodeId: string;
  readonly ticker: string;
  readonly state: CoinState;
  /** Session of the last event applied (a new session starts every coin inactive). */
  readonly sessionId: string;
  readonly address?: string;
  readonly currentBlock?: number;
  /** `Iguana` or `HDWallet`, and when the coin was enabled (the `time` of its `CoinActivated`). */
  readonly derivationMethod?: string;
  readonly activatedAt?: string;
  /**
   * The settings of the coin and of each enabled token, keyed by ticker (issue 13): as activation
   * decided them, then as `RequiredConfirmationsSet` / `RequiresNotarizationSet` changed them.
   * Absent for coins activated before settings were recorded.
   */
  readonly settings?: Readonly<Record<string, CoinSettings>>;
  readonly tokens?: readonly CoinToken[];
  readonly balances?: Readonly<Record<string, BalanceInfo>>;
  /** An active coin with a gas station: its last price, its age and whether it is stale ({@link nextGasPrice}). */
  readonly gasPrice?: GasPriceState;
  /** The last failure; cleared by the next activation request and by a new session. */
  readonly error?: ErrorInfo;
  /** `metadata.seq` (the node's log position) of the last event applied. */
  readonly lastSeq: number;
  /** `metadata.time` of the last event applied. */
  readonly updatedAt: string;
}

type Enabled = Pick<CoinStatus, 'address' | 'currentBlock' | 'derivationMethod' | 'activatedAt' | 'settings' | 'tokens' | 'balances'>;

/** Error recorded when an activation died with its service (`ActivationInterrupted`). */
export const activationInterruptedMessage = (sessionId: string): string =>
  `activation was interrupted: the service stopped (session ${sessionId})`;

/**
 * The pure coin reducer, mirroring `coinActivation.machine`: the status after `event`, or
 * `undefined` when the event does not change it, decided by the event's type alone, never by
 * `prev` (the projector skips such events on a cached, possibly older, value). `prev` undefined
 * is a coin never seen (inactive). `SessionStarted` (a node event) resets the coin: callers apply
 * it to every coin of its node.
 */
export function nextCoinStatus(
  prev: CoinStatus | undefined,
  event: StoredEvent,
  key: { readonly nodeId: string; readonly ticker: string },
): CoinStatus | undefined {
  const held = prev?.address === undefined ? undefined : prev;
  switch (event.type) {
    case 'SessionStarted':
      return statusOf(key, event, 'inactive');
    case 'ActivationRequested':
      return statusOf(key, event, 'activating', held);
    case 'CoinActivated':
      return statusOf(key, event, 'active', activated(held, event.data, event.metadata.time));
    case 'ActivationFailed':
      return statusOf(key, event, held ? 'passive' : 'inactive', held, event.data.error);
    case 'ActivationCancelled':
      return statusOf(key, event, held ? 'passive' : 'inactive', held, prev?.error);
    case 'ActivationInterrupted': {
      const message = activationInterruptedMessage(event.data.sessionId);
      return statusOf(key, event, 'inactive', undefined, { errorType: 'InternalError', message, data: message });
    }
    case 'CoinPassivated':
      return statusOf(key, event, 'passive', held, prev?.error);
    case 'CoinDisabled':
      return statusOf(key, event, 'inactive', undefined, prev?.error);
  }
  const base = { nodeId: key.nodeId, ticker: key.ticker, sessionId: event.metadata.sessionId, lastSeq: event.metadata.seq, updatedAt: event.metadata.time };
  const enabled = held === undefined ? undefined : enabledPart(held);
  switch (event.type) {
    case 'RequiredConfirmationsSet':
      return withSetting(prev, base, enabled, event.data.ticker, { requiredConfirmations: event.data.confirmations });
    case 'RequiresNotarizationSet':
      return withSetting(prev, base, enabled, event.data.ticker, { requiresNotarization: event.data.requiresNotarization });
    case 'TokenDisabled': {
      const error = prev?.error === undefined ? {} : { error: prev.error };
      return { ...base, state: prev?.state ?? 'inactive', ...withoutToken(enabled, event.data.ticker), ...gasPriceOf(prev, event), ...error };
    }
    case 'TokenActivated': {
      const error = prev?.error === undefined ? {} : { error: prev.error };
      return { ...base, state: prev?.state ?? 'inactive', ...withToken(enabled, event.data, event.metadata.time), ...gasPriceOf(prev, event), ...error };
    }
    case 'GasPriceUpdated':
    case 'GasPriceStale': {
      // Always a new value, even when the price part stays the same: whether an event changes a
      // key must depend on its type alone (the projector skips on a cached value by that rule).
      const { gasPrice: _replaced, ...rest } = prev ?? { state: 'inactive' as const };
      return { ...rest, ...base, ...gasPriceOf(prev, event) };
    }
    case 'BalanceChanged': {
      // Always a new value (lastSeq moves), whatever it changes: the rule of the gas price events.
      return { ...(prev ?? { state: 'inactive' as const }), ...base, ...withBalance(enabled, event.data) };
    }
    default:
      return undefined;
  }
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A status after `event`: its header, then the enabled-coin fields of `enabled` that are set, then
 * `error`. Built field by field because it runs for most events of a replay, where object spreads
 * of the optional parts cost more than the rest of the reducing together.
 */
function statusOf(
  key: { readonly nodeId: string; readonly ticker: string },
  event: StoredEvent,
  state: CoinState,
  enabled?: Enabled,
  error?: ErrorInfo,
): CoinStatus {
  const s: Writable<CoinStatus> = { nodeId: key.nodeId, ticker: key.ticker, sessionId: event.metadata.sessionId, lastSeq: event.metadata.seq, updatedAt: event.metadata.time, state };
  if (enabled !== undefined) {
    s.address = enabled.address;
    if (enabled.currentBlock !== undefined) s.currentBlock = enabled.currentBlock;
    if (enabled.derivationMethod !== undefined) s.derivationMethod = enabled.derivationMethod;
    if (enabled.activatedAt !== undefined) s.activatedAt = enabled.activatedAt;
    if (enabled.settings !== undefined) s.settings = enabled.settings;
    s.tokens = enabled.tokens ?? [];
    if (enabled.balances !== undefined) s.balances = enabled.balances;
  }
  if (error !== undefined) s.error = error;
  return s;
}

/** The `gasPrice` field after `event` (absent when the coin has no price): the rule of `gasPrices.ts`. */
function gasPriceOf(prev: CoinStatus | undefined, event: StoredEvent): { gasPrice?: GasPriceState } {
  const next = nextGasPrice(prev?.gasPrice, event);
  return next === undefined ? {} : { gasPrice: next };
}

/** The enabled-coin fields of a status, or `undefined` when the coin holds none. */
function enabledPart(s: CoinStatus): Enabled | undefined {
  if (s.address === undefined) return undefined;
  return {
    address: s.address,
    ...(s.currentBlock === undefined ? {} : { currentBlock: s.currentBlock }),
    ...(s.derivationMethod === undefined ? {} : { derivationMethod: s.derivationMethod }),
    ...(s.activatedAt === undefined ? {} : { activatedAt: s.activatedAt }),
    ...(s.settings === undefined ? {} : { settings: s.settings }),
    tokens: s.tokens ?? [],
    ...(s.balances === undefined ? {} : { balances: s.balances }),
  };
}

/** Fresh tokens first, then those kept through a passive period (as the machine orders them), each with its settings. */
function activated(kept: Enabled | undefined, data: Extract<StoredEvent, { type: 'CoinActivated' }>['data'], time: string): Enabled {
  const keptTokens = kept?.tokens === undefined || kept.tokens.length === 0 ? [] : notIn(kept.tokens, data.tokens);
  const tokens = [...data.tokens.map(({ ticker, contractAddress, decimals }) => ({ ticker, contractAddress, decimals, activatedAt: time })), ...keptTokens];
  const settings: Record<string, CoinSettings> = {};
  if (data.settings !== undefined) settings[data.ticker] = data.settings;
  for (const t of data.tokens) if (t.settings !== undefined) settings[t.ticker] = t.settings;
  for (const t of keptTokens) {
    const own = kept?.settings?.[t.ticker];
    if (own !== undefined) settings[t.ticker] = own;
  }
  const balances: Record<string, BalanceInfo> = {};
  if (data.balance !== undefined) balances[data.ticker] = data.balance;
  for (const t of data.tokens) if (t.balance !== undefined) balances[t.ticker] = t.balance;
  for (const t of keptTokens) {
    const b = kept?.balances?.[t.ticker];
    if (b !== undefined) balances[t.ticker] = b;
  }
  return {
    address: data.address,
    currentBlock: data.currentBlock,
    derivationMethod: data.derivationMethod,
    activatedAt: time,
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    tokens,
    ...(Object.keys(balances).length > 0 ? { balances } : {}),
  };
}

/** `tokens` whose ticker none of `fresh` has. */
function notIn(tokens: readonly CoinToken[], fresh: readonly { readonly ticker: string }[]): CoinToken[] {
  const freshTickers = new Set(fresh.map((t) => t.ticker));
  return tokens.filter((t) => !freshTickers.has(t.ticker));
}

/**
 * The status after a setting of `ticker` changed (the coin or one of its tokens). When the coin
 * holds no settings for it (one activated before they were kept) only `lastSeq` moves: whether an
 * event changes a key depends on its type alone (see {@link nextCoinStatus}).
 */
function withSetting(
  prev: CoinStatus | undefined,
  base: Pick<CoinStatus, 'nodeId' | 'ticker' | 'sessionId' | 'lastSeq' | 'updatedAt'>,
  enabled: Enabled | undefined,
  ticker: string,
  change: Partial<CoinSettings>,
): CoinStatus {
  const own = enabled?.settings?.[ticker];
  if (enabled === undefined || own === undefined) return { ...(prev ?? { state: 'inactive' as const }), ...base };
  return { ...prev!, ...base, settings: { ...enabled.settings, [ticker]: { ...own, ...change } } };
}

/** The enabled part with a token added by `enable_erc20` (its balance and settings too). */
function withToken(enabled: Enabled | undefined, token: Extract<StoredEvent, { type: 'TokenActivated' }>['data'], time: string): Enabled | Record<string, never> {
  if (enabled === undefined) return {};
  const { ticker, contractAddress, decimals, balance, settings } = token;
  return {
    ...enabled,
    tokens: [...(enabled.tokens ?? []).filter((t) => t.ticker !== ticker), { ticker, contractAddress, decimals, activatedAt: time }],
    ...(settings === undefined ? {} : { settings: { ...enabled.settings, [ticker]: settings } }),
    ...(balance === undefined ? {} : { balances: { ...enabled.balances, [ticker]: balance } }),
  };
}

/**
 * The enabled part with a watched balance changed (`BalanceChanged`): the coin's or one of its
 * tokens' balance at the coin's address; a balance of another address (or of no enabled coin) leaves it.
 */
function withBalance(enabled: Enabled | undefined, change: Extract<StoredEvent, { type: 'BalanceChanged' }>['data']): Enabled | Record<string, never> {
  if (enabled === undefined || change.address !== enabled.address) return {};
  const known = change.ticker === change.platform || (enabled.tokens ?? []).some((t) => t.ticker === change.ticker);
  return known ? { ...enabled, balances: { ...enabled.balances, [change.ticker]: change.new } } : {};
}

function withoutToken(enabled: Enabled | undefined, token: string): Enabled | Record<string, never> {
  if (enabled === undefined) return {};
  const { balances, settings, ...rest } = enabled;
  const left = balances === undefined ? undefined : withoutKey(balances, token);
  const settingsLeft = settings === undefined ? undefined : withoutKey(settings, token);
  return {
    ...rest,
    ...(settingsLeft === undefined ? {} : { settings: settingsLeft }),
    tokens: (enabled.tokens ?? []).filter((t) => t.ticker !== token),
    ...(left === undefined ? {} : { balances: left }),
  };
}

/** `record` without `key`; `undefined` when nothing is left. */
function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> | undefined {
  const left = Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
  return Object.keys(left).length === 0 ? undefined : left;
}
