import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { EmbeddedEventLog } from './events/log/embeddedEventLog.ts';
import { ensureEventsStream, type EventsStreamOptions } from './events/jetstream/ensureStream.ts';
import { startOutboxPublisher, type OutboxPublisher } from './events/outbox/outboxPublisher.ts';
import { nodeEventsFilter, startProjector, type Projector } from './events/projector/projector.ts';
import type { Dispatcher } from './rpc/dispatcher.ts';
import { consoleLog, type Log } from './kernel/log.ts';
import { openStatusKv } from './events/projector/statusKv.ts';
import { serveRpcOverNats } from './rpc/natsRpc.ts';
import { sleep, type Clock } from './kernel/clock.ts';
import type { NatsSettings } from './infra/config/nodeConfig.ts';
import { natsConnectionOptions } from './infra/nats/connect.ts';

export interface NatsLinkOptions {
  readonly settings: NatsSettings;
  readonly nodeId: string;
  readonly outbox: EmbeddedEventLog;
  readonly dispatcher: Dispatcher;
  readonly dbdir: string;
  readonly clock: Clock;
  readonly log?: Log;
}

/** Where the outbox publisher keeps its mark: the outbox position published so far. */
export function publishMarkFile(dbdir: string): string {
  return join(dbdir, 'published.seq');
}

/** The service's side of NATS once connected. */
export interface NatsLink {
  /** Resolves once connected and every part runs (never, while NATS stays unreachable). */
  readonly ready: Promise<void>;
  publisher(): OutboxPublisher | undefined;
  projector(): Projector | undefined;
  stop(): Promise<void>;
}

/**
 * Connects to NATS in the background (the service answers HTTP meanwhile and events wait in the
 * outbox), then: ensures the event stream, publishes the outbox, serves RPC on
 * `activation.rpc.<node_id>`, and runs the KV projector for this node unless `projector` is
 * `external`. The first connection is retried with backoff; nats.js reconnects after that.
 */
export function startNatsLink(options: NatsLinkOptions): NatsLink {
  const log = options.log ?? consoleLog;
  const stopping = new AbortController();
  const connectionOptions = natsConnectionOptions(options.settings, `coin-activation ${options.nodeId}`);
  const stream: EventsStreamOptions = {
    replicas: options.settings.streamReplicas,
    maxAgeMs: options.settings.streamMaxAgeSeconds * 1000,
  };
  let nc: NatsConnection | undefined;
  let publisher: OutboxPublisher | undefined;
  let projector: Projector | undefined;
  let rpc: { stop(): Promise<void> } | undefined;

  const firstConnection = async (): Promise<NatsConnection> => {
    for (let attempt = 0; ; attempt++) {
      stopping.signal.throwIfAborted();
      try {
        return await connect({ ...connectionOptions, waitOnFirstConnect: false });
      } catch (error) {
        if (attempt === 0) log.warn('nats unreachable; retrying, events wait in the outbox', { error: (error as Error).message });
        await sleep(options.clock, Math.min(30_000, 500 * 2 ** Math.min(attempt, 6)), stopping.signal);
      }
    }
  };

  const ready = (async () => {
    nc = await firstConnection();
    await ensureEventsStream(await jetstreamManager(nc), stream);
    // The bucket too gets `stream_replicas` (created, or changed, here even when the projector is external).
    await openStatusKv(nc, { replicas: stream.replicas ?? 1, log });
    publisher = await startOutboxPublisher({
      outbox: options.outbox,
      nc,
      nodeId: options.nodeId,
      markFile: publishMarkFile(options.dbdir),
      clock: options.clock,
      stream,
      log,
    });
    rpc = serveRpcOverNats({ nc, nodeId: options.nodeId, dispatcher: options.dispatcher, log });
    if (options.settings.projector === 'embedded') {
      // This node's own projector: one durable per node, since a durable has one filter.
      const durableName = `activation-projector-${options.nodeId}`;
      projector = await startProjector({ nc, durableName, filter: nodeEventsFilter(options.nodeId), log });
    }
    log.info('nats connected', { nodeId: options.nodeId });
  })();
  ready.catch((error: unknown) => {
    if (!stopping.signal.aborted) log.error('nats link failed', { error: (error as Error).message });
  });

  return {
    ready,
    publisher: () => publisher,
    projector: () => projector,
    async stop() {
      stopping.abort(new Error('the service is stopping'));
      await ready.catch(() => undefined);
      await rpc?.stop();
      await projector?.stop();
      await publisher?.stop();
      await nc?.drain().catch(() => undefined);
    },
  };
}
