import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import type { Log } from '../kernel/log.ts';
import { LIVENESS } from '../infra/nats/connect.ts';
import { ALL_EVENTS_FILTER, DEFAULT_PROJECTOR_DURABLE, PROJECTOR_DEFAULTS, nodeEventsFilter, startProjector, type Projector } from '../events/projector/projector.ts';

/** Usage of `npm run projector`. */
export const PROJECTOR_USAGE = `usage: npm run projector -- --nats <url> [options]

Maintains the KV bucket ACTIVATION_STATUS from the stream ACTIVATION_EVENTS until SIGINT/SIGTERM.
Processes started with the same --durable name form one projector set and share the work.

  --nats <url>          NATS server (e.g. nats://127.0.0.1:4222)
  --durable <name>      durable consumer name (default ${DEFAULT_PROJECTOR_DURABLE})
  --node <id>           project only this node's events (default: every node)
  --report-every <s>    log the lag every <s> seconds (default 10)
  --ack-wait <ms>       redelivery delay of a message a dead projector left (default ${PROJECTOR_DEFAULTS.ackWaitMs})`;

/** Parsed options of the projector CLI. */
export interface ProjectorCliOptions {
  readonly nats: string;
  readonly durableName: string;
  readonly filter: string;
  readonly reportEveryMs: number;
  readonly ackWaitMs: number;
}

/** Parses the CLI arguments (throws with a message on bad ones). */
export function parseProjectorArgs(argv: readonly string[]): ProjectorCliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nats: { type: 'string' },
      durable: { type: 'string', default: DEFAULT_PROJECTOR_DURABLE },
      node: { type: 'string' },
      'report-every': { type: 'string', default: '10' },
      'ack-wait': { type: 'string', default: String(PROJECTOR_DEFAULTS.ackWaitMs) },
    },
  });
  if (values.nats === undefined) throw new Error('--nats <url> is required');
  const reportEvery = Number(values['report-every']);
  const ackWait = Number(values['ack-wait']);
  if (!(reportEvery > 0) || !(ackWait >= 1_000)) throw new Error('--report-every must be > 0 and --ack-wait >= 1000');
  return {
    nats: values.nats,
    durableName: values.durable ?? DEFAULT_PROJECTOR_DURABLE,
    filter: values.node === undefined ? ALL_EVENTS_FILTER : nodeEventsFilter(values.node),
    reportEveryMs: reportEvery * 1_000,
    ackWaitMs: ackWait,
  };
}

/**
 * Runs a projector process until `signal` aborts: connects (reconnecting forever), starts the
 * projector (retrying while the stream does not exist yet), logs the lag every `reportEveryMs`,
 * then stops the projector and drains the connection.
 */
export async function runProjectorProcess(options: ProjectorCliOptions, log: Log, signal: AbortSignal): Promise<void> {
  const nc = await connect({ servers: options.nats, name: `projector ${options.durableName}`, maxReconnectAttempts: -1, timeout: 5_000, ...LIVENESS });
  let projector: Projector | undefined;
  try {
    while (projector === undefined && !signal.aborted) {
      try {
        projector = await startProjector({ nc, durableName: options.durableName, filter: options.filter, ackWaitMs: options.ackWaitMs, log });
      } catch (error) {
        log.warn('projector: cannot start yet; retrying', { error: String(error) });
        await sleep(2_000, undefined, { signal }).catch(() => undefined);
      }
    }
    while (projector !== undefined && !signal.aborted) {
      await sleep(options.reportEveryMs, undefined, { signal }).catch(() => undefined);
      if (!signal.aborted) log.info('projector: lag', { ...projector.lag(), ...projector.stats() });
    }
  } finally {
    await projector?.stop();
    await nc.drain().catch(() => nc.close());
  }
}
