import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EmbeddedEventLog } from './embeddedEventLog.ts';

const filler = fileURLToPath(new URL('../../devnet/testkits/eventLogFiller.ts', import.meta.url));

test('a write the kernel refuses stops the log: that append and every later one fail, and reopening finds exactly the acknowledged events', async () => {
  // Given a log in a process whose files may not grow past 64 KiB (Node ignores SIGXFSZ, so the
  // write that crosses the limit fails with EFBIG instead of killing the process)
  const dir = await mkdtemp(join(tmpdir(), 'log-efbig-'));
  try {
    const { stdout } = await promisify(execFile)('bash', ['-c', 'ulimit -f 64 && exec "$0" --import tsx "$1" "$2"', process.execPath, filler, dir], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    const outcome = JSON.parse(stdout) as { acknowledged: number; refused?: string; later: string; lastSeq: number };

    // Then the append that crossed the limit was refused, and so was the one after it
    assert.ok(outcome.acknowledged > 10, `only ${outcome.acknowledged} appends fit in 64 KiB`);
    assert.match(outcome.refused ?? '', /^event log is not writable: .*EFBIG/);
    assert.match(outcome.later, /^event log is not writable/);

    // And reopened without the limit, the log holds every acknowledged event and nothing else
    // (a record torn by the limit is cut off by recovery)
    const log = await EmbeddedEventLog.open({ dir, sessionId: 'check' });
    assert.equal(log.recovery.events, outcome.acknowledged);
    const seqs: number[] = [];
    for await (const event of log.read()) seqs.push(event.metadata.seq);
    assert.deepEqual(seqs, Array.from({ length: outcome.acknowledged }, (_, i) => i + 1));
    await log.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
