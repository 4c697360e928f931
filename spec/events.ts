import { Type, type Static } from '@sinclair/typebox';
import { compile } from './validate.ts';
import { CoinSettings } from './coinSettings.ts';
import { NftHolding } from './nft.ts';
import { TaskKind } from './taskKind.ts';
import { HistorySyncStarted, HistorySynced, HistorySyncFailed } from './historyEvents.ts';

export { HistorySyncStarted, HistorySynced, HistorySyncFailed };
import { TransactionBroadcast, WithdrawalSigned, WithdrawalSummary } from './withdrawEvents.ts';

export { TransactionBroadcast, WithdrawalSigned, WithdrawalSummary } from './withdrawEvents.ts';
import { EventBalance, event } from './eventParts.ts';
import { AddressCreated, AddressesScanned, NewAddressRead, ScannedAddressesRead } from './hdAddressEvents.ts';

export { AddressCreated, AddressesScanned, NewAddressRead, ScannedAddressesRead };

/**
 * Domain events: the audit trail of the service. Every state change of an activation actor is one
 * of these, past tense. They carry no secret: no passphrase, key, PIN, rpc password, and no node
 * URL (URLs often embed provider API keys).
 */

const Balance = EventBalance;
const ErrorInfo = Type.Object({
  errorType: Type.String(),
  message: Type.String(),
  data: Type.Optional(Type.Unknown()),
});
const ActivatedToken = Type.Object({
  ticker: Type.String(),
  contractAddress: Type.String(),
  decimals: Type.Integer(),
  balance: Type.Optional(Balance),
  /** The token's settings (issue 13); absent in events written before they were kept. */
  settings: Type.Optional(CoinSettings),
});

export const SessionStarted = event(
  'SessionStarted',
  Type.Object({ sessionId: Type.String(), version: Type.String(), derivationMethod: Type.String() }),
);
export const ActivationRequested = event(
  'ActivationRequested',
  Type.Object({
    ticker: Type.String(),
    family: Type.String(),
    via: Type.String(),
    tokens: Type.Array(Type.String()),
    getBalances: Type.Boolean(),
    attempt: Type.Integer(),
    /** EVM coins: the swap contracts the request gave (this service makes no swaps); absent ones are `null`. */
    swapContracts: Type.Optional(
      Type.Object({
        swapContractAddress: Type.Union([Type.String(), Type.Null()]),
        fallbackSwapContract: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
);
/** An HD account as activated: the addresses listed and how many are known to be used. */
const HdListing = Type.Object({
  walletId: Type.String(),
  accountIndex: Type.Integer({ minimum: 0 }),
  accountPath: Type.String(),
  chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]),
  knownAddresses: Type.Integer({ minimum: 0 }),
  /**
   * The account's other chain as the activation knew it (issue 26): a UTXO coin's scan covers both
   * chains; absent when it knew no address there (and in events written before it was kept).
   */
  otherChain: Type.Optional(Type.Object({ chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]), knownAddresses: Type.Integer({ minimum: 0 }) })),
  /** Sum over the listed addresses, keyed by ticker. */
  totalBalances: Type.Record(Type.String(), Balance),
  addresses: Type.Array(
    Type.Object({
      address: Type.String(),
      derivationPath: Type.String(),
      chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]),
      /** Keyed by ticker: the platform and each token. */
      balances: Type.Record(Type.String(), Balance),
    }),
  ),
});

/** What a `task::account_balance` read of an HD account found (docs/compatibility.md §21). */
export const AccountBalanceRead = Type.Omit(HdListing, ['walletId', 'chain', 'knownAddresses', 'otherChain']);
export type AccountBalanceRead = Static<typeof AccountBalanceRead>;

export const CoinActivated = event(
  'CoinActivated',
  Type.Object({
    ticker: Type.String(),
    family: Type.String(),
    address: Type.String(),
    pubkey: Type.String(),
    derivationMethod: Type.String(),
    currentBlock: Type.Integer(),
    balance: Type.Optional(Balance),
    tokens: Type.Array(ActivatedToken),
    attempt: Type.Integer(),
    /** BIP32 path of the address (HD and hardware keys). */
    derivationPath: Type.Optional(Type.String()),
    /** HD mode: the scanned account (also how many addresses later activations know). */
    hd: Type.Optional(HdListing),
    /** The coin's settings (issue 13); absent in events written before they were kept. */
    settings: Type.Optional(CoinSettings),
    /** The NFTs the `nft_req` indexer listed (rendered as `nfts_infos`); absent without `nft_req`. */
    nfts: Type.Optional(Type.Array(NftHolding)),
  }),
);
export const ActivationFailed = event(
  'ActivationFailed',
  Type.Object({ ticker: Type.String(), error: ErrorInfo, attempt: Type.Integer() }),
);
export const ActivationCancelled = event(
  'ActivationCancelled',
  Type.Object({ ticker: Type.String(), attempt: Type.Integer() }),
);
/** An activation was still running when its service stopped; recorded on the next start. */
export const ActivationInterrupted = event(
  'ActivationInterrupted',
  Type.Object({ ticker: Type.String(), attempt: Type.Integer(), sessionId: Type.String() }),
);
/**
 * `set_required_confirmations` changed an enabled coin's setting. On its platform's stream:
 * `ticker` is the coin changed (the platform or one of its tokens), `platform` the stream's coin.
 */
export const RequiredConfirmationsSet = event(
  'RequiredConfirmationsSet',
  Type.Object({ ticker: Type.String(), platform: Type.String(), confirmations: Type.Integer({ minimum: 0 }) }),
);
/** `set_requires_notarization` changed an enabled coin's setting (same stream rule as above). */
export const RequiresNotarizationSet = event(
  'RequiresNotarizationSet',
  Type.Object({ ticker: Type.String(), platform: Type.String(), requiresNotarization: Type.Boolean() }),
);
export const CoinPassivated = event(
  'CoinPassivated',
  Type.Object({ ticker: Type.String(), activeTokens: Type.Array(Type.String()) }),
);
export const CoinDisabled = event(
  'CoinDisabled',
  Type.Object({ ticker: Type.String(), tokens: Type.Array(Type.String()) }),
);
export const TokenDisabled = event('TokenDisabled', Type.Object({ ticker: Type.String(), platform: Type.String() }));

/**
 * `enable_erc20` asked to add a token to an active platform (on the platform's stream): the token is
 * held from now until its `TokenActivated` or `TokenActivationFailed`.
 */
export const TokenActivationRequested = event(
  'TokenActivationRequested',
  Type.Object({ ticker: Type.String(), platform: Type.String(), family: Type.String(), via: Type.String() }),
);
/** The token was read and is enabled on its platform (on the platform's stream): the token as `CoinActivated` lists one. */
export const TokenActivated = event('TokenActivated', Type.Object({ ...ActivatedToken.properties, platform: Type.String() }));
/** The token's read failed, or its platform stopped being active meanwhile; nothing was enabled. */
export const TokenActivationFailed = event(
  'TokenActivationFailed',
  Type.Object({ ticker: Type.String(), platform: Type.String(), error: ErrorInfo }),
);

/**
 * The gas price of an EVM coin with a gas station changed: read at activation (the first one after
 * its `CoinActivated`), or by a later refresh that got another price, or the first good read after
 * a stale period (which ends it, even at the same price). An unchanged price writes nothing.
 * `gasPriceWei` is the exact integer in wei; `updatedAt` when the station answered it (ISO 8601).
 */
export const GasPriceUpdated = event(
  'GasPriceUpdated',
  Type.Object({ ticker: Type.String(), gasPriceWei: Type.String({ pattern: '^(0|[1-9][0-9]*)$' }), updatedAt: Type.String() }),
);
/**
 * A refresh of the coin's gas station failed: the last price is kept and is stale from `since`
 * (the first failed refresh) until a read succeeds. Once per stale period, not per failure.
 * `reason` names the station by origin only (its path or query may hold an API key).
 */
export const GasPriceStale = event(
  'GasPriceStale',
  Type.Object({ ticker: Type.String(), since: Type.String(), reason: Type.String() }),
);

/**
 * A watched balance changed (issue 24): the balance of `ticker` (the platform or one of its
 * tokens) at `address` was `old` at the last block the watcher read and is `new` at `block`. On the
 * platform's stream (`platform`). Amounts are exact decimal strings in the coin's unit, as in
 * `CoinActivated`. An unchanged balance writes nothing.
 */
export const BalanceChanged = event(
  'BalanceChanged',
  Type.Object({
    ticker: Type.String(),
    platform: Type.String(),
    address: Type.String(),
    old: Balance,
    new: Balance,
    block: Type.Integer({ minimum: 0 }),
  }),
);

/**
 * Progress of one activation attempt (issue 15), on its coin's stream, between its
 * `ActivationRequested` and its outcome. `attempt` is that of `ActivationRequested`; `taskId` is set
 * when a `task::enable_eth` task runs the activation. They change no status: projections skip them.
 */
const AttemptProgress = {
  ticker: Type.String(),
  family: Type.String(),
  attempt: Type.Integer(),
  taskId: Type.Optional(Type.Integer()),
};
/** What became of asking one node: see {@link NodeAttempted}. */
export const NodeOutcome = {
  /** The node answered the read. */
  Answered: 'answered',
  /** The node failed (refused the connection, answered an error about itself); the next is asked. */
  Failed: 'failed',
  /** No answer within the node's budget; the next is asked. */
  TimedOut: 'timedOut',
  /** The node answered "busy" (HTTP 429, a rate-limit error); it is left alone for `retryAfterMs`. */
  Busy: 'busy',
  /** Not asked: it said "busy" before and its `retryAfterMs` has not passed. */
  SkippedBusy: 'skippedBusy',
  /** The node answered that the read itself is wrong (a token contract's error): no other is asked. */
  Rejected: 'rejected',
} as const;
export type NodeOutcome = (typeof NodeOutcome)[keyof typeof NodeOutcome];
/**
 * One node asked (or skipped) by the failover policy during an activation. `read` numbers the
 * activation's reads (1, 2, …), `retry` the nodes tried before this one in the same read (0: the
 * first; more: a retry on the next node). `node` is the node's position in the coin's node list at
 * that read, `origin` its `scheme://host:port` only (never a path, query or credentials: URLs
 * often hold API keys). `ms` is how long the node took (0 when skipped).
 */
export const NodeAttempted = event(
  'NodeAttempted',
  Type.Object({
    ...AttemptProgress,
    read: Type.Integer({ minimum: 1 }),
    retry: Type.Integer({ minimum: 0 }),
    node: Type.Integer({ minimum: 0 }),
    origin: Type.String(),
    outcome: Type.Union(Object.values(NodeOutcome).map((o) => Type.Literal(o))),
    ms: Type.Integer({ minimum: 0 }),
    /** `busy` and `skippedBusy`: how long until the node is asked again. */
    retryAfterMs: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
);
/** A read of the platform's tokens answered: `read` of the `of` tokens of the request. */
export const TokensRead = event(
  'TokensRead',
  Type.Object({ ...AttemptProgress, read: Type.Integer({ minimum: 0 }), of: Type.Integer({ minimum: 0 }) }),
);
/**
 * One read of an HD scan (one round trip): addresses `fromIndex` … `fromIndex + checked − 1` of the
 * account's chain were checked (the first read also holds the addresses known before), `used` of
 * them have been used, and `knownAddresses` are known to be used so far.
 */
export const HdWindowScanned = event(
  'HdWindowScanned',
  Type.Object({
    ...AttemptProgress,
    accountIndex: Type.Integer({ minimum: 0 }),
    chain: Type.Union([Type.Literal('External'), Type.Literal('Internal')]),
    fromIndex: Type.Integer({ minimum: 0 }),
    checked: Type.Integer({ minimum: 1 }),
    used: Type.Integer({ minimum: 0 }),
    knownAddresses: Type.Integer({ minimum: 0 }),
  }),
);

/** A task's progress as `task::<kind>::status` reports it while it runs. */
export const TaskProgressed = event(
  'TaskProgressed',
  Type.Object({
    taskId: Type.Integer(),
    status: Type.Union([Type.Literal('InProgress'), Type.Literal('UserActionRequired')]),
    details: Type.String(),
  }),
);
export const TaskCreated = event(
  'TaskCreated',
  Type.Object({
    taskId: Type.Integer(),
    ticker: Type.String(),
    tokens: Type.Array(Type.String()),
    /** The key policy of an activation's command; absent for a `task::account_balance` read. */
    keyPolicy: Type.Optional(Type.String()),
    getBalances: Type.Boolean(),
    /** The account a `task::account_balance`, `get_new_address` or `scan_for_new_addresses` task works on; absent for activations. */
    accountIndex: Type.Optional(Type.Integer({ minimum: 0 })),
    /** `client_id` of `init` (issue 15): its `/event-stream` connections hear the task; absent before it was kept. */
    clientId: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Which `task::<kind>` methods run the task (issue 23); absent before other kinds existed: `enable_eth`. */
    kind: Type.Optional(Type.Union(Object.values(TaskKind).map((k) => Type.Literal(k)))),
  }),
);
/** The user answered the device's PIN request (the PIN itself is never recorded). */
export const HardwarePinEntered = event('HardwarePinEntered', Type.Object({ taskId: Type.Integer() }));
export const TaskSucceeded = event(
  'TaskSucceeded',
  Type.Union([
    Type.Object({ taskId: Type.Integer(), activation: CoinActivated.properties.data }),
    Type.Object({ taskId: Type.Integer(), accountBalance: AccountBalanceRead }),
    /** A `task::withdraw`: the signed transaction (kept: the status answer is this event's projection). */
    Type.Object({ taskId: Type.Integer(), withdrawal: WithdrawalSummary }),
    Type.Object({ taskId: Type.Integer(), newAddress: NewAddressRead }),
    Type.Object({ taskId: Type.Integer(), scannedAddresses: ScannedAddressesRead }),
  ]),
);
export const TaskFailed = event('TaskFailed', Type.Object({ taskId: Type.Integer(), error: ErrorInfo }));
export const TaskCancelled = event('TaskCancelled', Type.Object({ taskId: Type.Integer() }));
/** A finished task's result was read with `forget_if_finished`; it is no longer answered. */
export const TaskForgotten = event('TaskForgotten', Type.Object({ taskId: Type.Integer() }));
/** A task was still running when the service stopped; recorded on the next start. */
export const TaskInterrupted = event('TaskInterrupted', Type.Object({ taskId: Type.Integer(), sessionId: Type.String() }));

/** Any domain event, before the log gives it an identity. */
export const DomainEvent = Type.Union([
  SessionStarted,
  ActivationRequested,
  CoinActivated,
  ActivationFailed,
  ActivationCancelled,
  ActivationInterrupted,
  RequiredConfirmationsSet,
  RequiresNotarizationSet,
  CoinPassivated,
  CoinDisabled,
  TokenDisabled,
  TokenActivationRequested,
  TokenActivated,
  TokenActivationFailed,
  GasPriceUpdated,
  GasPriceStale,
  BalanceChanged,
  HistorySyncStarted,
  HistorySynced,
  HistorySyncFailed,
  NodeAttempted,
  TokensRead,
  HdWindowScanned,
  AddressCreated,
  AddressesScanned,
  TaskCreated,
  TaskProgressed,
  HardwarePinEntered,
  TaskSucceeded,
  TaskFailed,
  TaskCancelled,
  TaskForgotten,
  TaskInterrupted,
  WithdrawalSigned,
  TransactionBroadcast,
]);
export type DomainEvent = Static<typeof DomainEvent>;
export type DomainEventType = DomainEvent['type'];
export type EventOf<K extends DomainEventType> = Extract<DomainEvent, { type: K }>;
export type ActivatedTokenInfo = Static<typeof ActivatedToken>;
export type BalanceInfo = Static<typeof Balance>;
export type ErrorInfo = Static<typeof ErrorInfo>;

/** Identity the log gives an event: global position, aggregate stream and its own sequence. */
export const EventMetadata = Type.Object({
  eventId: Type.String(),
  seq: Type.Integer({ minimum: 1 }),
  stream: Type.String(),
  streamSeq: Type.Integer({ minimum: 1 }),
  sessionId: Type.String(),
  /** The node that wrote it (NATS `node_id`); absent in logs written before NATS support. */
  nodeId: Type.Optional(Type.String()),
  time: Type.String(),
});
export type EventMetadata = Static<typeof EventMetadata>;

/** An event as stored in the log and published to subscribers. */
export const StoredEvent = Type.Intersect([DomainEvent, Type.Object({ metadata: EventMetadata })]);
export type StoredEvent = DomainEvent & { metadata: EventMetadata };

export const storedEventSchema = compile(StoredEvent);

/** The formatted, secret-free summary of an activation: the data of its `CoinActivated` event. */
export type ActivationSummary = EventOf<'CoinActivated'>['data'];
