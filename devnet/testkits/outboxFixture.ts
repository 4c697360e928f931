/**
 * The outbox publisher's unit-test bench: an embedded log (no fsync) on a manual clock in a fresh
 * folder, a {@link MemorySink} standing for JetStream, a log that keeps warnings, and the
 * publisher's options (removed after the test).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../testing/manualClock.ts';
import { EmbeddedEventLog } from '../../events/log/embeddedEventLog.ts';
import type { OutboxPublisherCoreOptions } from '../../events/outbox/outboxPublisher.ts';
import type { Log } from '../../kernel/log.ts';
import { MemorySink } from './memorySink.ts';

export async function outboxFixture(t: { after(fn: () => Promise<void>): void }, nodeId: string) {
  const dir = await mkdtemp(join(tmpdir(), 'outbox-'));
  const clock = new ManualClock();
  const outbox = await EmbeddedEventLog.open({ dir, sessionId: 's1', nodeId, clock, fsync: false });
  const sink = new MemorySink(clock);
  const warnings: string[] = [];
  const log: Log = { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const options = (extra: Partial<OutboxPublisherCoreOptions> = {}): OutboxPublisherCoreOptions => ({
    outbox,
    nodeId,
    markFile: join(dir, 'published.seq'),
    clock,
    log,
    ...extra,
  });
  t.after(async () => {
    await outbox.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, clock, outbox, sink, options, warnings };
}

/** Per subject, the streamSeqs in stream order; and whether every event id is there once. */
export function streamShape(sink: MemorySink) {
  const perSubject = new Map<string, number[]>();
  for (const m of sink.messages) perSubject.set(m.subject, [...(perSubject.get(m.subject) ?? []), m.event.metadata.streamSeq]);
  const ids = sink.messages.map((m) => m.event.metadata.eventId);
  return { perSubject, unique: new Set(ids).size === ids.length, count: ids.length };
}
