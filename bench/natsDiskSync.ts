/**
 * Diagnostic of the NATS bench: the disk alone. One ~500-byte record appended and fdatasync'ed
 * at a time, at the latency part's rate, in the bench's own directory: the floor the outbox's
 * durability puts under our event → KV latency on this machine, measured in the same run.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarizeLatency, type LatencySummary } from './latencySummary.ts';
import { paced } from './natsPacer.ts';

/** Append + fdatasync of one record, `count` times at `perSecond` (one sync at a time, like the log's group commit). */
export async function measureDiskSync(dir: string, perSecond: number, count: number): Promise<LatencySummary> {
  const path = join(dir, 'disk-sync.probe');
  const file = await open(path, 'a');
  const record = Buffer.alloc(500, 0x61);
  record[record.length - 1] = 0x0a;
  const samples: number[] = [];
  let syncing = Promise.resolve();
  try {
    await paced(count, perSecond, () => {
      syncing = syncing.then(async () => {
        const started = performance.now();
        await file.appendFile(record);
        await file.datasync();
        samples.push(performance.now() - started);
      });
    });
    await syncing;
  } finally {
    await file.close();
    await rm(path, { force: true });
  }
  return summarizeLatency(samples);
}
