/**
 * The server side of the stream bench, in its own process so its CPU is measured alone: the real
 * service with N live tasks (statusServers.ts), and a generator of status changes. Each change is
 * a `TaskProgressed` written to the task's log stream (a local double of a task moving on), whose
 * `details` names the change; the moment the service has applied it (the log listener, after the
 * fsync: from then on `status` answers it and the stream sends it) is recorded as its time.
 *
 * IPC: `{type:'window', mode, durationMs, ratePerS}` → runs the changes for that long, answers
 * `{type:'window', cpuUs, wallMs, applied: [details, epochMs][]}`; `{type:'exit'}`.
 */
import './silence.ts';
import { performance } from 'node:perf_hooks';
import { taskStream } from '../events/log/eventLog.ts';
import { startLiveTaskService } from './statusServers.ts';

export interface WindowRequest {
  readonly type: 'window';
  readonly label: string;
  readonly durationMs: number;
  readonly ratePerS: number;
}
export interface WindowResult {
  readonly type: 'window';
  readonly cpuUs: number;
  readonly wallMs: number;
  /** Each change's `details` and when the service applied it (epoch ms, sub-ms precision). */
  readonly applied: readonly (readonly [string, number])[];
}
export type ServerReply = { type: 'ready'; url: string; taskIds: number[]; setupMs: number } | WindowResult | { type: 'failed'; error: string };

/** Wall-clock time with sub-millisecond precision, comparable across processes of one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

const tasks = Number(process.env.BENCH_STREAM_TASKS ?? 1000);
const clients = Number(process.env.BENCH_STREAM_CLIENTS ?? 50);
const send = (m: ServerReply) => process.send!(m);

try {
  const live = await startLiveTaskService(tasks, { clientIds: clients });
  const { service, taskIds } = live;
  const appliedAt = new Map<string, number>();
  service.log.subscribe((event) => {
    if (event.type === 'TaskProgressed' && event.data.details.startsWith('Bench:')) appliedAt.set(event.data.details, epochMs());
  });
  let counter = 0;
  process.on('message', async (message: WindowRequest | { type: 'exit' }) => {
    if (message.type === 'exit') {
      await live.stop();
      process.exit(0);
    }
    appliedAt.clear();
    // A full collection first, so no window pays for the garbage an earlier one left (the heap
    // holds 1,000 tasks: one major GC costs as much as hundreds of changes).
    (globalThis as { gc?: () => void }).gc?.();
    const writes: Promise<unknown>[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    let next = 0;
    // One timer per change, set for the moment it is due (paced on elapsed time, so a late timer
    // catches up instead of lowering the rate): the generator wakes the process no more often than
    // the changes themselves do, so the windows measure the service rather than the generator.
    await new Promise<void>((resolve) => {
      const tick = () => {
        const elapsed = performance.now() - started;
        const due = Math.min(Math.floor((elapsed / 1000) * message.ratePerS), Math.floor((message.durationMs / 1000) * message.ratePerS));
        for (; next < due; next++) {
          const taskId = taskIds[next % taskIds.length]!;
          const details = `Bench:${message.label}:${counter++}`;
          writes.push(service.log.append(taskStream(taskId), [{ type: 'TaskProgressed', data: { taskId, status: 'InProgress', details } }]));
        }
        const nextAt = message.ratePerS === 0 ? message.durationMs : Math.min(message.durationMs, ((next + 1) * 1000) / message.ratePerS);
        if (elapsed >= message.durationMs) return resolve();
        setTimeout(tick, Math.max(0, nextAt - elapsed));
      };
      tick();
    });
    await Promise.all(writes);
    const used = process.cpuUsage(cpu);
    send({ type: 'window', cpuUs: used.user + used.system, wallMs: performance.now() - started, applied: [...appliedAt] });
  });
  send({ type: 'ready', url: live.url, taskIds: [...taskIds], setupMs: live.setupMs });
} catch (error) {
  send({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
