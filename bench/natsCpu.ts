/**
 * CPU use over an interval, as fractions of one core: this process (user + system), its event
 * loop's utilization, and the bench's nats-server (from /proc, Linux only; `undefined` elsewhere).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** CPU use between {@link startCpuMeter} and `read()`. */
export interface CpuUse {
  readonly wallMs: number;
  /** This process's CPU time / wall time (1 = one core busy). */
  readonly process: number;
  /** Share of the wall time the event loop was busy (0 … 1). */
  readonly eventLoop: number;
  /** nats-server's CPU time / wall time, if its process was found. */
  readonly natsServer: number | undefined;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Pid of the nats-server listening on `port` (matched on its command line), if any. */
export function findNatsServerPid(port: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0]?.endsWith('nats-server') && args.includes('-p') && args[args.indexOf('-p') + 1] === String(port)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

function serverTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15 of stat)
  } catch {
    return undefined;
  }
}

/** Starts measuring; `read()` gives the use since then. */
export function startCpuMeter(serverPid: number | undefined): { read(): CpuUse } {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const elu0: EventLoopUtilization = performance.eventLoopUtilization();
  const ticks0 = serverTicks(serverPid);
  return {
    read() {
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const ticks1 = serverTicks(serverPid);
      return {
        wallMs,
        process: (cpu.user + cpu.system) / 1000 / wallMs,
        eventLoop: performance.eventLoopUtilization(elu0).utilization,
        natsServer: ticks0 === undefined || ticks1 === undefined ? undefined : ((ticks1 - ticks0) * 1000) / TICKS_PER_SECOND / wallMs,
      };
    },
  };
}
