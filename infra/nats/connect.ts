import { credsAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import type { NatsSettings } from '../config/nodeConfig.ts';

/**
 * How a connection notices a server that went silent (a host lost with its sockets, a network
 * cut): a ping every 5 s, given up after 2 unanswered, so within 10–15 s (nats.js's default is 2
 * min × 2). A server process that dies closes its sockets and is noticed at once; the client then
 * dials the next server of its list (and of those the cluster announced) without waiting, and
 * `reconnectTimeWait` only spaces out attempts at a server tried within the last second.
 */
export const LIVENESS = { pingInterval: 5_000, maxPingOut: 2, reconnectTimeWait: 1_000 } as const;

/**
 * nats.js options from the `nats` config key. Reconnects forever once connected (events wait in the
 * outbox meanwhile); the first connection is retried by `startNatsLink`.
 */
export function natsConnectionOptions(settings: NatsSettings, name: string): ConnectionOptions {
  return {
    servers: [...settings.servers],
    name: settings.name ?? name,
    ...(settings.user === undefined ? {} : { user: settings.user }),
    ...(settings.pass === undefined ? {} : { pass: settings.pass.reveal() }),
    ...(settings.token === undefined ? {} : { token: settings.token.reveal() }),
    ...(settings.credsFile === undefined ? {} : { authenticator: credsAuthenticator(readFileSync(settings.credsFile)) }),
    ...(settings.tls === undefined ? {} : { tls: { ...settings.tls } }),
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    ...LIVENESS,
    // nats.js otherwise builds two Error objects (stack traces) per request, in case it fails:
    // a fifth of the CPU of publishing the outbox. Our errors carry messages, not these stacks.
    noAsyncTraces: true,
  };
}
