import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, ReplayPolicy, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { EVENTS_STREAM, EVENTS_SUBJECT_ROOT, encodeToken } from '../jetstream/subjects.ts';

/** Default durable consumer name: one projector set per name. */
export const DEFAULT_PROJECTOR_DURABLE = 'activation-projector';
/** Every node's events. */
export const ALL_EVENTS_FILTER = `${EVENTS_SUBJECT_ROOT}.>`;

/** Subject filter of one node's events: `activation.events.<node_id>.>`. */
export function nodeEventsFilter(nodeId: string): string {
  return `${EVENTS_SUBJECT_ROOT}.${encodeToken(nodeId)}.>`;
}

/** How the durable consumer of a projector set is configured. */
export interface ProjectorConsumerOptions {
  readonly durableName: string;
  readonly filter: string;
  /** Redelivery delay of an unacknowledged message (a crashed projector's message). */
  readonly ackWaitMs: number;
}

/**
 * Creates the projector set's durable pull consumer, or checks the existing one (and brings its
 * ack wait to `ackWaitMs`). Explicit ack, and
 * one message in flight at a time (`max_ack_pending: 1`) across every process of the set: each
 * event is applied and acknowledged before the next is handed out, to whichever process asks, so
 * keys see events in stream order however many projectors run.
 */
export async function ensureProjectorConsumer(jsm: JetStreamManager, options: ProjectorConsumerOptions): Promise<ConsumerInfo> {
  try {
    const info = await jsm.consumers.info(EVENTS_STREAM, options.durableName);
    const filter = info.config.filter_subject ?? ALL_EVENTS_FILTER;
    if (filter !== options.filter) {
      throw new Error(`durable consumer ${options.durableName} filters ${filter}, not ${options.filter}: use another --durable name`);
    }
    if (info.config.max_ack_pending !== 1) {
      throw new Error(`durable consumer ${options.durableName} allows ${info.config.max_ack_pending} unacknowledged messages; a projector needs 1`);
    }
    if (info.config.ack_wait !== nanos(options.ackWaitMs)) {
      return await jsm.consumers.update(EVENTS_STREAM, options.durableName, { ack_wait: nanos(options.ackWaitMs) });
    }
    return info;
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound)) throw error;
  }
  return jsm.consumers.add(EVENTS_STREAM, {
    durable_name: options.durableName,
    description: 'activation status projector (KV ACTIVATION_STATUS)',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    filter_subject: options.filter,
    max_ack_pending: 1,
    ack_wait: nanos(options.ackWaitMs),
    max_deliver: -1,
  });
}
