import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressBar, progressPrinter } from './replayProgress.ts';

const sink = (isTTY: boolean) => {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (t: string) => chunks.push(t) };
};

test('the bar fills with the position', () => {
  assert.equal(progressBar(0, 10), `[${'.'.repeat(30)}]   0%`);
  assert.equal(progressBar(5, 10), `[${'#'.repeat(15)}${'.'.repeat(15)}]  50%`);
  assert.equal(progressBar(0, 0), `[${'#'.repeat(30)}] 100%`, 'an empty source is done');
});

test('a terminal gets one bar redrawn in place; a pipe gets periodic lines', () => {
  const tty = sink(true);
  const onTty = progressPrinter(tty);
  for (let i = 1; i <= 3; i++) onTty.update({ position: i, total: 3, unit: 'events', events: i, elapsedMs: i * 10 });
  onTty.finish();
  assert.ok(tty.chunks.slice(0, 3).every((c) => c.startsWith('\r[')));
  assert.equal(tty.chunks.at(-1), '\n');

  const pipe = sink(false);
  const onPipe = progressPrinter(pipe, { lineEveryMs: 1_000 });
  for (let ms = 0; ms <= 2_500; ms += 100) onPipe.update({ position: ms, total: 5_000, unit: 'bytes', events: ms, elapsedMs: ms });
  onPipe.update({ position: 5_000, total: 5_000, unit: 'bytes', events: 2_600, elapsedMs: 2_600 });
  onPipe.finish();
  assert.deepEqual(pipe.chunks.map((c) => c.slice(0, 8)), ['replay: ', 'replay: ', 'replay: ', 'replay: ']);
  assert.ok(pipe.chunks.every((c) => !c.includes('\r') && c.endsWith('\n')));
  assert.match(pipe.chunks.at(-1)!, /100% 2600 events, 1000 events\/s/);
});
