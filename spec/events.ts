import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { compile } from './validate.ts';

/**
 * Domain events: the audit trail of the service. Every state change of an activation actor is one
 * of these, past tense. They carry no secret: no passphrase, key, PIN, rpc password, and no node
 * URL (URLs often embed provider API keys).
 */

const Balance = Type.Object({ spendable: Type.String(), unspendable: Type.String() });
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
});

function event<K extends string, D extends TSchema>(type: K, data: D) {
  return Type.Object({ type: Type.Literal(type), data });
}

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
  }),
);
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
export const CoinPassivated = event(
  'CoinPassivated',
  Type.Object({ ticker: Type.String(), activeTokens: Type.Array(Type.String()) }),
);
export const CoinDisabled = event(
  'CoinDisabled',
  Type.Object({ ticker: Type.String(), tokens: Type.Array(Type.String()) }),
);
export const TokenDisabled = event('TokenDisabled', Type.Object({ ticker: Type.String(), platform: Type.String() }));

/** Any domain event, before the log gives it an identity. */
export const DomainEvent = Type.Union([
  SessionStarted,
  ActivationRequested,
  CoinActivated,
  ActivationFailed,
  ActivationCancelled,
  CoinPassivated,
  CoinDisabled,
  TokenDisabled,
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
  time: Type.String(),
});
export type EventMetadata = Static<typeof EventMetadata>;

/** An event as stored in the log and published to subscribers. */
export const StoredEvent = Type.Intersect([DomainEvent, Type.Object({ metadata: EventMetadata })]);
export type StoredEvent = DomainEvent & { metadata: EventMetadata };

export const storedEventSchema = compile(StoredEvent);
