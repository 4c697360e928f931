import { credsAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import type { NatsSettings } from '../config/nodeConfig.ts';

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
    reconnectTimeWait: 1_000,
    pingInterval: 10_000,
    // nats.js otherwise builds two Error objects (stack traces) per request, in case it fails:
    // a fifth of the CPU of publishing the outbox. Our errors carry messages, not these stacks.
    noAsyncTraces: true,
  };
}
