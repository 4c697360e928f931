/**
 * Child process for the log's write-failure test: appends 1 KiB events one at a time to the log in
 * `argv[2]` until an append is refused, tries one more, and prints what happened as JSON. Run it
 * under a file-size limit (`ulimit -f`): the kernel then refuses the write that crosses it (EFBIG),
 * a real write failure without any stand-in for the file system.
 */
import { EmbeddedEventLog } from '../../events/log/embeddedEventLog.ts';

const dir = process.argv[2]!;
const log = await EmbeddedEventLog.open({ dir, sessionId: 'filler' });
const details = 'x'.repeat(1024);
let acknowledged = 0;
let refused: string | undefined;
for (let i = 0; i < 100_000 && refused === undefined; i++) {
  try {
    await log.append(`task.${i}`, [{ type: 'TaskProgressed', data: { taskId: i, status: 'InProgress', details } }]);
    acknowledged += 1;
  } catch (e) {
    refused = e instanceof Error ? e.message : String(e);
  }
}
// Whatever comes after a failed write is refused too: appending past a gap would corrupt order.
const later = await log.append('task.later', [{ type: 'TaskProgressed', data: { taskId: 0, status: 'InProgress', details: 'tiny' } }]).then(
  () => 'accepted',
  (e: unknown) => (e instanceof Error ? e.message : String(e)),
);
process.stdout.write(JSON.stringify({ acknowledged, refused, later, lastSeq: log.lastSeq }));
