/**
 * The raw JetStream round trip on the same server, at the same rate, with the same messages: a
 * publisher on one connection, an ordered consumer on another, nothing else (no outbox, no
 * headers, no projector).
 */
import { performance } from 'node:perf_hooks';
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { summarizeLatency, type LatencySummary } from './latencySummary.ts';
import type { SentMessage } from './natsLatency.ts';
import { startCpuMeter, type CpuUse } from './natsCpu.ts';
import { paced } from './natsPacer.ts';
import { connectLikeService, dropStream, freshRawStream, rawSubject } from './natsSetup.ts';

const STREAM = 'BENCH_RAW_ROUND_TRIP';

/** What {@link measureRawRoundTrip} measured (measured phase only). */
export interface RawRoundTripResult {
  readonly events: number;
  readonly offeredPerSecond: number;
  readonly achievedPerSecond: number;
  readonly generatorLate: LatencySummary;
  /** Publish call until its PubAck. */
  readonly publishToAck: LatencySummary;
  /** Publish call until the consumer receives the message. */
  readonly publishToReceive: LatencySummary;
  /** The same, from the time the publish was due. */
  readonly scheduledToReceive: LatencySummary;
  /** CPU use while the measured messages were being published. */
  readonly cpu: CpuUse;
}

/**
 * Publishes `messages` (their raw subjects) at `perSecond`, open loop, to a fresh file-storage
 * stream and times each until an ordered consumer receives it; the first `warmup` are left out.
 * Messages are matched by stream sequence (one publisher, one connection: sequence = call order,
 * checked against every PubAck).
 */
export async function measureRawRoundTrip(
  url: string,
  messages: readonly SentMessage[],
  perSecond: number,
  warmup: number,
  serverPid?: number,
): Promise<RawRoundTripResult> {
  const pub = await connectLikeService(url, 'bench raw publisher');
  const sub = await connectLikeService(url, 'bench raw consumer');
  let consumed: ConsumerMessages | undefined;
  try {
    await freshRawStream(pub, STREAM);
    const js = jetstream(pub);
    const receivedAt = new Map<number, number>();
    const consumer = await jetstream(sub).consumers.get(STREAM, { deliver_policy: DeliverPolicy.All });
    consumed = await consumer.consume();
    const reading = (async () => {
      for await (const m of consumed!) receivedAt.set(m.seq, performance.now());
    })();
    // Priming message (sequence 1): the consumer is flowing before the clock starts.
    await js.publish(rawSubject(messages[0]!.subject), messages[0]!.body);
    await until(() => receivedAt.has(1), 10_000, 'priming message');

    const sentAt = new Float64Array(messages.length);
    const scheduled = new Float64Array(messages.length);
    const ackAt = new Float64Array(messages.length);
    const acks: Promise<void>[] = [];
    let misordered = 0;
    let meter: ReturnType<typeof startCpuMeter> | undefined;
    const run = await paced(messages.length, perSecond, (i, scheduledAt) => {
      if (i === warmup) meter = startCpuMeter(serverPid);
      const m = messages[i]!;
      scheduled[i] = scheduledAt;
      sentAt[i] = performance.now();
      acks.push(
        js.publish(rawSubject(m.subject), m.body).then((ack) => {
          ackAt[i] = performance.now();
          if (ack.seq !== i + 2) misordered++;
        }),
      );
    });
    const cpu = meter!.read();
    await Promise.all(acks);
    if (misordered > 0) throw new Error(`${misordered} raw publishes got an unexpected stream sequence`);
    await until(() => receivedAt.size === messages.length + 1, 30_000, 'raw round trip');
    await consumed.close();
    await reading;

    const idx = Array.from({ length: messages.length - warmup }, (_, k) => k + warmup);
    return {
      events: idx.length,
      offeredPerSecond: perSecond,
      achievedPerSecond: run.achievedPerSecond,
      generatorLate: summarizeLatency(run.lateMs.subarray(warmup)),
      publishToAck: summarizeLatency(idx.map((i) => ackAt[i]! - sentAt[i]!)),
      publishToReceive: summarizeLatency(idx.map((i) => receivedAt.get(i + 2)! - sentAt[i]!)),
      scheduledToReceive: summarizeLatency(idx.map((i) => receivedAt.get(i + 2)! - scheduled[i]!)),
      cpu,
    };
  } finally {
    await consumed?.close().catch(() => undefined);
    await dropStream(pub, STREAM);
    await pub.close().catch(() => undefined);
    await sub.close().catch(() => undefined);
  }
}

async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
