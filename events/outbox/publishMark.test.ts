import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../devnet/testing/manualClock.ts';
import { MarkWriter, readPublishMark, writePublishMark } from './publishMark.ts';

test('the mark is read back, missing reads as 0 and damage reads as 0 (flagged)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mark-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'published.seq');
  assert.deepEqual(await readPublishMark(path), { seq: 0, damaged: false });
  await writePublishMark(path, 42);
  assert.deepEqual(await readPublishMark(path), { seq: 42, damaged: false });
  assert.deepEqual(await readdir(dir), ['published.seq'], 'no temporary file left');
  await writeFile(path, '4x');
  assert.deepEqual(await readPublishMark(path), { seq: 0, damaged: true });
});

test('marks are saved every N events or after the delay, whichever comes first; a rewind saves at once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mark-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'published.seq');
  const clock = new ManualClock();
  const marks = new MarkWriter({ path, clock, batching: { everyEvents: 3, everyMs: 100 }, saved: 0, onError: (e) => assert.fail(String(e)) });
  const saved = async () => (await readPublishMark(path)).seq;
  marks.note(1);
  marks.note(2);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(await saved(), 0, 'not yet');
  clock.advance(100);
  await marks.flush();
  assert.equal(await saved(), 2, 'after the delay');
  for (const seq of [3, 4, 5]) marks.note(seq);
  for (let i = 0; i < 200 && (await saved()) !== 5; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(await saved(), 5, 'after 3 events, with no time passing');
  marks.note(0);
  await marks.flush();
  assert.equal(await readFile(path, 'utf8'), '0\n');
});
