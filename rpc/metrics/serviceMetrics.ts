/**
 * The service's Prometheus metrics (docs/metrics.md), on a registry of its own (several services
 * in one process never share a series). Activation and node metrics are derived from the domain
 * events (`activationMetrics.ts`); the lags and the stream's clients are read when scraped.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StoredEvent } from '../../spec/events.ts';
import { NodeOutcome } from '../../spec/events.ts';
import { ChainFamilyId } from '../../machines/activation.types.ts';
import { ActivationOutcome, ActivationTimer } from './activationMetrics.ts';

/** The label a method name that is not in the method tables gets (bounds the series). */
export const UNKNOWN_METHOD = 'unknown';

/** What the metrics read when scraped; each defaults to 0 where it does not apply. */
export interface MetricSources {
  /** Events of the outbox not yet published to JetStream (0 without NATS). @default () => 0 */
  readonly outboxLag?: () => number;
  /** Events of this node the KV projector has not applied (0 without NATS or its embedded projector). @default () => 0 */
  readonly projectorLag?: () => number;
  /** Open event-stream connections (`/event-stream`, `/events`). @default () => 0 */
  readonly streamClients?: () => number;
}

const FAMILIES = Object.values(ChainFamilyId);
/** Seconds: an activation takes from a few ms (a local node) to minutes (a hardware wallet's PIN). */
const ACTIVATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds: an append is an fsync, group-committed. */
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #methods = new Set<string>();
  readonly #activations: Counter<'family' | 'outcome'>;
  readonly #activationSeconds: Histogram<'family'>;
  readonly #nodeRequests: Counter<'family' | 'outcome'>;
  readonly #rpcRequests: Counter<'method' | 'status'>;
  readonly #appendSeconds: Histogram;
  readonly #timer = new ActivationTimer();
  /**
   * RPC answers not yet added to the counter, by method label and HTTP status. prom-client's own
   * `inc` hashes and checks its labels on every call, a cost every status poll would pay.
   */
  readonly #answered = new Map<string, Map<number, number>>();

  constructor(sources: MetricSources = {}) {
    const registers = [this.registry];
    this.#activations = new Counter({
      name: 'coin_activation_activations_total',
      help: 'Activation attempts finished, by chain family and outcome (activated, failed, cancelled).',
      labelNames: ['family', 'outcome'],
      registers,
    });
    this.#activationSeconds = new Histogram({
      name: 'coin_activation_activation_seconds',
      help: 'Time from an activation request to its outcome, by chain family (event times).',
      labelNames: ['family'],
      buckets: ACTIVATION_BUCKETS,
      registers,
    });
    this.#nodeRequests = new Counter({
      name: 'coin_activation_node_requests_total',
      help: 'Nodes asked (or skipped as busy) by activations, by chain family and outcome.',
      labelNames: ['family', 'outcome'],
      registers,
    });
    this.#rpcRequests = new Counter({
      name: 'coin_activation_rpc_requests_total',
      help: 'RPC requests answered (each of a batch), by method (unknown names as "unknown") and HTTP status.',
      labelNames: ['method', 'status'],
      registers,
      // Answers are counted in #answered (per request: two map lookups) and added here when read.
      collect: () => this.#flushAnswered(),
    });
    this.#appendSeconds = new Histogram({
      name: 'coin_activation_event_append_seconds',
      help: 'Time to append events to the log, until durable.',
      buckets: APPEND_BUCKETS,
      registers,
    });
    const gauge = (name: string, help: string, read: (() => number) | undefined) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read?.() ?? 0);
        },
      });
    gauge('coin_activation_outbox_lag_events', 'Events in the outbox not yet published to NATS JetStream (0 without NATS).', sources.outboxLag);
    gauge('coin_activation_projector_lag_events', 'Events of this node not yet applied to the KV by its projector (0 without NATS).', sources.projectorLag);
    gauge('coin_activation_stream_clients', 'Open event-stream connections (/event-stream, /events).', sources.streamClients);

    // Every series whose labels are known exists from the start, at 0.
    for (const family of FAMILIES) {
      for (const outcome of Object.values(ActivationOutcome)) this.#activations.inc({ family, outcome }, 0);
      for (const outcome of Object.values(NodeOutcome)) this.#nodeRequests.inc({ family, outcome }, 0);
      this.#activationSeconds.zero({ family });
    }
    this.#rpcRequests.inc({ method: UNKNOWN_METHOD, status: '200' }, 0);
  }

  /** The method names the RPC answers: each is its own `method` label (from 0), any other is `unknown`. */
  knowMethods(names: Iterable<string>): void {
    for (const method of names) {
      this.#methods.add(method);
      this.#rpcRequests.inc({ method, status: '200' }, 0);
    }
  }

  /** A stored event: activations and node attempts are counted from these. */
  observe(event: StoredEvent): void {
    if (event.type === 'NodeAttempted') {
      this.#nodeRequests.inc({ family: event.data.family, outcome: event.data.outcome });
      return;
    }
    const finished = this.#timer.apply(event);
    if (finished === undefined) return;
    this.#activations.inc({ family: finished.family, outcome: finished.outcome });
    this.#activationSeconds.observe({ family: finished.family }, finished.seconds);
  }

  /** One RPC request answered with HTTP `status`; a name not in the method tables counts as `unknown`. */
  rpcAnswered(method: string | undefined, status: number): void {
    const label = method !== undefined && this.#methods.has(method) ? method : UNKNOWN_METHOD;
    let byStatus = this.#answered.get(label);
    if (byStatus === undefined) this.#answered.set(label, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  /** Adds the answers counted since the last read to the counter (called whenever it is read). */
  #flushAnswered(): void {
    for (const [method, byStatus] of this.#answered) {
      for (const [status, count] of byStatus) this.#rpcRequests.inc({ method, status: String(status) }, count);
    }
    this.#answered.clear();
  }

  /** One append to the event log took `seconds`. */
  appended(seconds: number): void {
    this.#appendSeconds.observe(seconds);
  }

  /** The text exposition and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
